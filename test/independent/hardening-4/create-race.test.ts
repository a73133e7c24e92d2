// Issue 43, item 13: without a checkpoint store, two principals creating one session id at the
// same moment both got 201, and the first lost the session to the second. One of them gets 409.
import { afterEach, describe, expect, it } from 'vitest';

import { serve } from '../../../src/index.js';
import { desk } from '../serve/support.js';

const TOKENS: Record<string, string> = { 'Bearer alice': 'alice', 'Bearer bob': 'bob' };
const authenticate = (request: Request) => {
  const id = TOKENS[request.headers.get('authorization') ?? ''];
  return id === undefined ? null : { id };
};

let handler: ReturnType<typeof serve> | undefined;
afterEach(async () => {
  await handler?.close();
  handler = undefined;
});

const call = (who: string, method: string, path: string, body?: unknown) =>
  handler!.fetch(
    new Request(`http://127.0.0.1${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${who}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );

describe('two principals creating one session id at once, without a store', () => {
  for (const route of ['/sessions', '/chat'] as const) {
    it(`${route}: one of them gets it, the other 409 (or 404), and the winner keeps it`, async () => {
      handler = serve(desk().workflow, { authenticate });
      const body =
        route === '/sessions'
          ? { id: 'same' }
          : {
              id: 'same',
              messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
              trigger: 'submit-message',
            };
      const [a, b] = await Promise.all([
        call('alice', 'POST', route, body),
        call('bob', 'POST', route, body),
      ]);
      const statuses = [a.status, b.status];
      const won = route === '/sessions' ? 201 : 200;
      const lost = route === '/sessions' ? 409 : 404;
      expect(statuses.sort()).toEqual([won, lost].sort());
      const winner = a.status === won ? 'alice' : 'bob';
      const loser = winner === 'alice' ? 'bob' : 'alice';
      await (a.status === won ? a : b).text();
      expect((await call(winner, 'GET', '/sessions/same')).status).toBe(200);
      expect((await call(loser, 'GET', '/sessions/same')).status).toBe(404);
    });
  }
});
