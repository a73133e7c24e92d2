// Issue 29: a turn over HTTP asks the store nothing more than the same turn in-process. The owner
// check, the busy check and a stop asked while the session was idle are read in the statement that
// takes the run's lease (TAKE_OWNED), so the HTTP layer adds no round trip to a run's start.
import { afterEach, describe, expect, it } from 'vitest';

import type { CheckpointStore } from '../../src/checkpoint/checkpoint-store.js';
import { MemoryCheckpointStore, serve } from '../../src/index.js';
import { serveDesk } from '../support/serve-desk.js';
import { TOKEN } from './serve-http.js';

/** `store`, recording the name of every method called on it (symbol-keyed ones included). */
function counting(store: CheckpointStore): { store: CheckpointStore; calls: string[] } {
  const calls: string[] = [];
  const proxy = new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(typeof key === 'symbol' ? (key.description ?? '?') : key);
        return Reflect.apply(value, target, args);
      };
    },
  });
  return { store: proxy, calls };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** The request of a turn on each route that starts a run. */
const TURNS: Record<string, (id: string, text: string) => [path: string, body: unknown]> = {
  '/sessions/:id/runs': (id, text) => [`/sessions/${id}/runs`, { input: text }],
  '/chat': (id, text) => [
    '/chat',
    { id, messages: [{ id: `u-${text}`, role: 'user', parts: [{ type: 'text', text }] }] },
  ],
};

describe('serve(): store round trips of a run', () => {
  for (const [route, turn] of Object.entries(TURNS)) {
    it(`a turn over HTTP (${route}) makes as many store calls as the same turn in-process, from its second turn in a process`, async () => {
      const { store, calls } = counting(new MemoryCheckpointStore());
      const desk = serveDesk({ store });
      const handler = serve(desk.workflow, { token: TOKEN });
      closers.push(() => handler.close());
      const post = async (path: string, body: unknown) => {
        const response = await handler.fetch(
          new Request(`http://local${path}`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${TOKEN}`,
              'content-type': 'application/json',
              accept: 'text/event-stream',
            },
            body: JSON.stringify(body),
          }),
        );
        return { status: response.status, text: await response.text() };
      };
      expect((await post('/sessions', { id: 'remote' })).status).toBe(201);
      const local = desk.workflow.session('local');
      const turns: { inProcess: string[]; overHttp: string[] }[] = [];
      for (let t = 1; t <= 3; t++) {
        calls.length = 0;
        await local.run(`hello ${t}`);
        const inProcess = calls.splice(0);
        const answer = await post(...turn('remote', `hello ${t}`));
        expect(answer.status).toBe(200);
        expect(answer.text).toContain('How can I help?');
        turns.push({ inProcess, overHttp: calls.splice(0) });
      }
      const run = ['acquireLease', 'read', 'append', 'append', 'releaseLease'];
      expect(turns.slice(1)).toEqual([
        { inProcess: run, overHttp: ['baton.takeOwned', ...run.slice(1)] },
        { inProcess: run, overHttp: ['baton.takeOwned', ...run.slice(1)] },
      ]);
    });
  }
});
