import { afterEach, describe, expect, it } from 'vitest';

import { MemoryCheckpointStore, serve } from '../../src/index.js';
import type { Listening } from '../../src/serve/node-listen.js';
import { Gate, HELLO_TURN, serveDesk } from '../support/serve-desk.js';
import { client, listen, parseSse, TOKEN, twoTenants } from './serve-http.js';

// How an SSE answer leaves: one body when the run ended before the answer was made, a stream whose
// headers leave at once when it goes on.

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SSE = { accept: 'text/event-stream' };
const until = async (check: () => boolean) => {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
};

const events = (text: string) => parseSse(text).map((e) => `${e.id} ${e.event}`);

async function readAll(response: Response): Promise<string> {
  return new TextDecoder().decode(await response.arrayBuffer());
}

describe('serve(): an SSE answer', () => {
  it('is one body with its length when the run ended before the answer was made', async () => {
    const desk = serveDesk({ store: new MemoryCheckpointStore() });
    server = await listen(serve(desk.workflow, { authenticate: twoTenants }));
    const call = client(server.url);
    await call('POST', '/sessions', { id: 'quick' });
    const sse = await call('POST', '/sessions/quick/runs', { input: 'hello' }, SSE);
    expect(sse.status).toBe(200);
    expect(sse.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(sse.headers.get('transfer-encoding')).toBeNull();
    expect(sse.headers.get('content-length')).toBe(String(Buffer.byteLength(sse.text)));
    expect(events(sse.text)).toEqual(HELLO_TURN);
  });

  it('streams, headers first, while the run waits for its model', async () => {
    const gate = new Gate();
    const desk = serveDesk({ store: new MemoryCheckpointStore(), gate });
    server = await listen(serve(desk.workflow, { authenticate: twoTenants }));
    const call = client(server.url);
    await call('POST', '/sessions', { id: 'held' });
    const response = await fetch(`${server.url}/sessions/held/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...SSE },
      body: JSON.stringify({ input: 'slow hello' }),
    });
    // The answer's headers came while the model is held: nothing after the user's message exists.
    expect(gate.waiting).toBe(1);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    // A stream opened at the last event so far: no frame is ready when its answer is made.
    const later = await fetch(`${server.url}/sessions/held/stream`, {
      headers: { authorization: `Bearer ${TOKEN}`, 'last-event-id': '2.1' },
    });
    expect(later.status).toBe(200);
    expect(gate.waiting).toBe(1);
    gate.open();
    const [all, rest] = await Promise.all([readAll(response), readAll(later)]);
    expect(events(all)).toEqual(HELLO_TURN);
    expect(events(rest)).toEqual(HELLO_TURN.slice(1));
    await until(() => gate.waiting === 0);
  });
});
