// Independent suite for API.md §16: a dispatcher needs a store that several machines share. With
// another store `serve()` and `startWorker()` throw a ConfigError at once; for the
// `(principal) => workflow` form the first request for it answers 500 with it. Written from
// API.md alone. Readings where the page is open:
// - "at once": `serve()` throws synchronously; `startWorker()` (which returns a Promise) rejects
//   before it takes any job — both are caught by wrapping the call in an async function;
// - a workflow with no store at all is "another store" too (its sessions live in one process);
// - the 500 answer is the §15 error body `{error: {code, message}}`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

import {
  Agent,
  ConfigError,
  type CheckpointStore,
  FileCheckpointStore,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  scriptedText,
  serve,
  startWorker,
} from '../../../src/index.js';
import { answer, authenticate, Backend, closeAll, type Kind, request } from './support.js';

// Queues, leases and retries take seconds on real servers: generous waits, no timed assertion.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });

const dirs: string[] = [];
afterEach(async () => {
  await closeAll();
});
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function echo(store?: CheckpointStore) {
  const agent = new Agent({ name: 'echo', client: new ScriptedChatClient([scriptedText('hi')]) });
  const builder = new HandoffBuilder({ name: 'cfg', participants: [agent] }).coordinator(agent);
  return (store ? builder.withCheckpointing(store) : builder).build();
}

async function unsharedStores(): Promise<[string, () => ReturnType<typeof echo>][]> {
  const dir = await mkdtemp(join(tmpdir(), 'baton-wk-file-'));
  dirs.push(dir);
  return [
    ['MemoryCheckpointStore', () => echo(new MemoryCheckpointStore())],
    ['FileCheckpointStore', () => echo(new FileCheckpointStore(dir))],
    ['no store', () => echo()],
  ];
}

describe.each(['pg-boss', 'bullmq'] as const)(
  'a dispatcher (%s) without a shared store (API.md §16)',
  (kind: Kind) => {
    it('serve(workflow, { dispatcher }) throws a ConfigError at once', async () => {
      const dispatcher = new Backend(kind).dispatcher();
      for (const [, make] of await unsharedStores()) {
        expect(() => serve(make(), { authenticate, dispatcher })).toThrow(ConfigError);
      }
    });

    it('startWorker(workflow, { dispatcher }) rejects with a ConfigError at once', async () => {
      const dispatcher = new Backend(kind).dispatcher();
      for (const [, make] of await unsharedStores()) {
        await expect((async () => startWorker(make(), { dispatcher }))()).rejects.toBeInstanceOf(
          ConfigError,
        );
      }
    });

    it('the (principal) => workflow form answers the first request for it 500 with the ConfigError', async () => {
      const dispatcher = new Backend(kind).dispatcher();
      for (const [what, make] of await unsharedStores()) {
        const workflow = make();
        const handler = serve(() => workflow, { authenticate, dispatcher });
        const created = await answer(handler.fetch(request('POST', '/sessions', { id: 'p1' })));
        expect([what, created.status]).toEqual([what, 500]);
        const body = created.json as { error: { code: string; message: string } };
        expect(Object.keys(body)).toEqual(['error']);
        expect(typeof body.error.code).toBe('string');
        expect(body.error.message).not.toBe('');
        await handler.close();
      }
    });
  },
);
