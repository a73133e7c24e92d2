import { afterEach, describe, expect, it } from 'vitest';

import { MemoryCheckpointStore, serve } from '../../src/index.js';
import type { Listening } from '../../src/serve/node-listen.js';
import { serveDesk } from '../support/serve-desk.js';
import { client, listen, parseSse, TOKEN, twoTenants } from './serve-http.js';

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('serve(): the plain routes', () => {
  for (const stored of [false, true]) {
    it(`creates, runs, approves and reads a session (${stored ? 'memory store' : 'no store'})`, async () => {
      const desk = serveDesk(stored ? { store: new MemoryCheckpointStore() } : {});
      server = await listen(serve(desk.workflow, { authenticate: twoTenants }));
      const call = client(server.url);
      const created = await call('POST', '/sessions', { id: 's1' });
      expect(created).toMatchObject({ status: 201, json: { id: 's1' } });
      const first = await call('POST', '/sessions/s1/runs', { input: 'hello' });
      expect(first.status).toBe(200);
      expect(first.json).toMatchObject({ status: 'awaiting_input', sessionId: 's1' });
      const sse = await call('POST', '/sessions/s1/runs', { input: 'I want a refund' }, { accept: 'text/event-stream' });
      expect(sse.headers.get('content-type')).toContain('text/event-stream');
      const events = parseSse(sse.text);
      expect(events.map((e) => `${e.id} ${e.event}`)).toEqual([]);
    });
  }
});
