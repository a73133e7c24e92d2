// Issue 43, item 14: `busy: "enqueue"` without a dispatcher ran a session's inputs in the order
// their bodies finished arriving, not the order the server received the requests. A request
// whose body is slow keeps its place: the inputs run in the order the requests came.
import { afterEach, describe, expect, it } from 'vitest';

import { serve } from '../../../src/index.js';
import { desk } from '../serve/support.js';

let handler: ReturnType<typeof serve> | undefined;
afterEach(async () => {
  await handler?.close();
  handler = undefined;
});

const HEADERS = { 'content-type': 'application/json', authorization: 'Bearer t' };

/** A request whose body is `text`, sent when `send()` is called; `read` once the server took it. */
function slowRun(path: string, text: string) {
  let send = () => {};
  let read = () => {};
  const done = new Promise<void>((resolve) => (read = resolve));
  const released = new Promise<void>((resolve) => (send = resolve));
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await released;
      controller.enqueue(bytes);
      controller.close();
      read();
    },
  });
  const request = new Request(`http://127.0.0.1${path}`, {
    method: 'POST',
    headers: HEADERS,
    body,
    duplex: 'half',
  } as RequestInit);
  return { request, send, read: done };
}

describe('busy: "enqueue" without a dispatcher', () => {
  it('runs the inputs of one session in the order the requests came, a slow body first', async () => {
    handler = serve(desk().workflow, { token: 't', busy: 'enqueue' });
    const created = await handler.fetch(
      new Request('http://127.0.0.1/sessions', {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify({ id: 's' }),
      }),
    );
    expect(created.status).toBe(201);
    const first = slowRun('/sessions/s/runs', JSON.stringify({ input: 'first' }));
    const second = slowRun('/sessions/s/runs', JSON.stringify({ input: 'second' }));
    const answers = [handler.fetch(first.request), handler.fetch(second.request)];
    // The second body arrives whole, then (a turn of the event loop later) the first.
    second.send();
    await second.read;
    await new Promise((resolve) => setImmediate(resolve));
    first.send();
    const [a, b] = await Promise.all(answers);
    expect([a!.status, b!.status]).toEqual([200, 200]);
    await Promise.all([a!.json(), b!.json()]);
    const messages = (await (
      await handler.fetch(new Request('http://127.0.0.1/sessions/s/messages', { headers: HEADERS }))
    ).json()) as { messages: { source: string; content: unknown }[] };
    const inputs = messages.messages.filter((m) => m.source === 'user').map((m) => m.content);
    expect(inputs).toEqual(['first', 'second']);
  });
});
