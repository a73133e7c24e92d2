// Issue 43, item 2: with a dispatcher, a `/chat` body refused with 400 after it took the session's
// place in the input line never gave the place back: every later input of that session on that
// server hung until a restart, and another tenant could do it with only the id (before the
// session existed, too). The body is checked before it takes a place; a refused one takes none.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

import {
  answer,
  authenticate,
  Backend,
  closeAll,
  desk,
  type Kind,
  request,
  server,
  unique,
  worker,
} from '../workers/support.js';

// A place never given back hangs the second request: the test's timeout is the failure.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

const backends: Backend[] = [];
afterEach(async () => {
  await closeAll();
});
afterAll(async () => {
  for (const b of backends) await b.drop();
});

const chatBody = (id: string, last: { role: string; text: string }) => ({
  id,
  trigger: 'submit-message',
  messages: [{ id: `m-${unique()}`, role: last.role, parts: [{ type: 'text', text: last.text }] }],
});

describe.each(['pg-boss', 'bullmq'] as const)('/chat with a dispatcher on %s', (kind: Kind) => {
  it('a refused body gives its place back: the next input of the session is answered', async () => {
    const b = new Backend(kind);
    backends.push(b);
    const name = `q43-${unique()}`;
    const front = desk({ store: b.store(), label: 'server', name });
    const handler = server(front.workflow, { authenticate, dispatcher: b.dispatcher() });
    await worker(desk({ store: b.store(), label: 'w1', name }).workflow, {
      dispatcher: b.dispatcher(),
    });
    const id = `c-${unique()}`;
    const refused = await answer(
      handler.fetch(request('POST', '/chat', chatBody(id, { role: 'assistant', text: 'hi' }))),
    );
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      error: {
        code: 'bad_request',
        message:
          'body.messages[0]: the last message is neither a user message nor approval responses',
      },
    });
    const good = await answer(
      handler.fetch(request('POST', '/chat', chatBody(id, { role: 'user', text: 'hello' }))),
    );
    expect(good.status).toBe(200);
    expect(good.text).toContain('w1: hello');
  });
});
