// Issue 43, item 3: stop requests travel as leases. They were keyed `baton.stop:<hash of id>`, in
// the same key space as sessions, and any holder counted as a stop: a tenant who made a session
// of that name and kept it running stopped every run of the victim's session. On the file,
// Postgres and Redis stores, a session id no longer reaches an internal key, and only a stop
// request counts as one.
import { hash } from 'node:crypto';

import { afterEach, describe, expect, it } from 'vitest';

import {
  Agent,
  type CheckpointStore,
  ConfigError,
  HandoffBuilder,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  serve,
  tool,
} from '../../../src/index.js';
import { z } from 'zod';
import {
  openFile,
  openPostgres,
  openRedis,
  type OpenStores,
} from '../../support/store-fixtures.js';
import { stopAsked, stopKey } from '../../../src/engine/feed/stop-signal.js';
import { outcomeKey } from '../../../src/workers/dispatcher.js';

const TOKENS: Record<string, string> = { 'Bearer alice': 'alice', 'Bearer bob': 'bob' };
const authenticate = (request: Request) => {
  const id = TOKENS[request.headers.get('authorization') ?? ''];
  return id === undefined ? null : { id };
};

/** A desk whose `hold` tool waits until `release()`; `held` resolves when it starts. */
function holdingDesk(store: CheckpointStore) {
  let release = () => {};
  let started = () => {};
  const held = new Promise<void>((resolve) => (started = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  const hold = tool({
    name: 'hold',
    description: 'Holds the run.',
    parameters: z.object({}),
    effect: 'read',
    execute: async () => {
      started();
      await gate;
      return 'held';
    },
  });
  const helper = new Agent({
    name: 'helper',
    tools: [hold],
    client: new ScriptedChatClient((request) => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool') return scriptedText('released');
      const text = JSON.stringify(last);
      return text.includes('hold on') ? scriptedToolCall('hold', {}) : scriptedText('hello');
    }),
  });
  const workflow = new HandoffBuilder({ name: 'stops', participants: [helper] })
    .coordinator(helper)
    .withCheckpointing(store)
    .build();
  return { workflow, held, release: () => release() };
}

const post = (handler: ReturnType<typeof serve>, who: string, path: string, body: unknown) =>
  handler.fetch(
    new Request(`http://127.0.0.1${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${who}` },
      body: JSON.stringify(body),
    }),
  );

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const stores: [string, OpenStores][] = [
  ['file', openFile],
  ['Postgres', openPostgres],
  ['Redis', openRedis],
];

for (const [name, open] of stores) {
  describe(`${name} store: stop requests`, async () => {
    const probe = await open();
    await probe?.close();
    const up = probe !== undefined;

    it.skipIf(!up)(
      "a tenant's running session named like the victim's old stop key stops nothing",
      async () => {
        const stores = (await open())!;
        closers.push(stores.close);
        const { workflow, held, release } = holdingDesk(stores.a);
        const handler = serve(workflow, { authenticate });
        closers.push(async () => {
          release();
          await handler.close();
        });
        expect((await post(handler, 'alice', '/sessions', { id: 'victim' })).status).toBe(201);

        const forged = `baton.stop:${hash('sha256', 'victim', 'hex').slice(0, 48)}`;
        expect((await post(handler, 'bob', '/sessions', { id: forged })).status).toBe(201);
        const bobs = post(handler, 'bob', `/sessions/${encodeURIComponent(forged)}/runs`, {
          input: 'hold on',
        });
        await held;
        expect(await stores.a.leaseHolder(forged)).not.toBeNull();

        const alices = await post(handler, 'alice', '/sessions/victim/runs', { input: 'hi' });
        expect(alices.status).toBe(200);
        const result = (await alices.json()) as { status: string; stopReason?: string };
        expect([result.status, result.stopReason ?? null]).toEqual(['awaiting_input', null]);
        release();
        expect(((await (await bobs).json()) as { status: string }).status).toBe('awaiting_input');
      },
    );

    it.skipIf(!up)('no client can name an internal key as a session id', async () => {
      const stores = (await open())!;
      closers.push(stores.close);
      const handler = serve(holdingDesk(stores.a).workflow, { authenticate });
      closers.push(() => handler.close());
      for (const key of [stopKey('victim'), outcomeKey('input-1')]) {
        const answer = await post(handler, 'bob', '/sessions', { id: key });
        expect(answer.status).toBe(400);
        expect(((await answer.json()) as { error: { message: string } }).error.message).toBe(
          'body.id: a session id holds no control characters or line separators; U+001F is at ' +
            'index 0. Choose an id of printable characters.',
        );
      }
    });

    it.skipIf(!up)('a workflow refuses a session named by an internal key', async () => {
      const stores = (await open())!;
      closers.push(stores.close);
      const { workflow } = holdingDesk(stores.a);
      const key = stopKey('victim');
      expect(() => workflow.session(key)).toThrow(
        new ConfigError(
          `session(): the session id ${JSON.stringify(key)} begins with U+001F "baton.", which ` +
            "is kept for Baton's internal keys. Use another id.",
          { path: 'sessionId' },
        ),
      );
    });

    it.skipIf(!up)(
      'a lease on the stop key held by anyone but a stop request is no stop',
      async () => {
        const stores = (await open())!;
        closers.push(stores.close);
        expect(await stores.a.acquireLease(stopKey('victim'), 'some-run', 30_000)).toBe(true);
        expect(await stopAsked(stores.a, 'victim')).toBe(false);
        const { workflow } = holdingDesk(stores.a);
        const handler = serve(workflow, { authenticate });
        closers.push(() => handler.close());
        expect((await post(handler, 'alice', '/sessions', { id: 'victim' })).status).toBe(201);
        const answer = await post(handler, 'alice', '/sessions/victim/runs', { input: 'hi' });
        expect(((await answer.json()) as { status: string }).status).toBe('awaiting_input');
      },
    );
  });
}
