// Hostile tests: FileCheckpointStore races and session-id edge cases; huge session ids on every store.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import {
  Agent,
  type CheckpointStore,
  ConfigError,
  FileCheckpointStore,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  scriptedText,
  SessionBusyError,
} from '../../../src/index.js';
import { openPostgres, openRedis } from '../../support/store-fixtures.js';
import { bundledScript } from '../../support/bundled-script.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'baton-h3-'));
  dirs.push(d);
  return d;
}

function desk(store: CheckpointStore) {
  const helper = new Agent({
    name: 'helper',
    client: new ScriptedChatClient((request) => {
      const last = request.messages.at(-1);
      const text = last && typeof last.content === 'string' ? last.content : '?';
      return scriptedText(`echo: ${text}`);
    }),
  });
  return new HandoffBuilder({ name: 'desk', participants: [helper] })
    .coordinator(helper)
    .withCheckpointing(store)
    .build();
}

describe('FileCheckpointStore: two store objects racing on one directory', () => {
  it('exactly one append of the same step wins, and the log always loads', async () => {
    const dir = await tempDir();
    const source = new FileCheckpointStore(await tempDir());
    await desk(source).session('s').run('one');
    await desk(source).session('s').run('two');
    await desk(source).session('s').run('three');
    const records = await source.read('s', { from: 'start' });
    expect(records.length).toBeGreaterThanOrEqual(3);

    for (let round = 0; round < records.length; round++) {
      const stores = Array.from({ length: 4 }, () => new FileCheckpointStore(dir));
      const record = records[round]!;
      const wins = await Promise.all(stores.map((s) => s.append('s', record)));
      expect(wins.filter(Boolean)).toHaveLength(1);
      const fresh = new FileCheckpointStore(dir);
      const read = await fresh.read('s', { from: 'start' });
      expect(read.map((r) => r.step)).toEqual(records.slice(0, round + 1).map((r) => r.step));
    }
    const expected = await desk(source).session('s').messages();
    const loaded = await desk(new FileCheckpointStore(dir)).session('s').messages();
    expect(loaded.map((m) => [m.type, m.content])).toEqual(
      expected.map((m) => [m.type, m.content]),
    );
  });

  it('two workflows on two store objects racing one session: one wins, no lost step, the log loads', async () => {
    const dir = await tempDir();
    for (let round = 0; round < 8; round++) {
      const a = desk(new FileCheckpointStore(dir)).session('race');
      const b = desk(new FileCheckpointStore(dir)).session('race');
      const outcomes = await Promise.allSettled([a.run(`a${round}`), b.run(`b${round}`)]);
      const fulfilled = outcomes.filter((o) => o.status === 'fulfilled');
      const rejected = outcomes.filter((o) => o.status === 'rejected');
      expect(fulfilled.length).toBeGreaterThanOrEqual(1);
      for (const r of rejected)
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(SessionBusyError);
      const thread = await desk(new FileCheckpointStore(dir)).session('race').messages();
      const answers = thread.filter((m) => m.type === 'TextMessage' && m.source === 'helper');
      const tasks = thread.filter((m) => m.type === 'TextMessage' && m.source === 'user');
      expect(answers).toHaveLength(tasks.length);
    }
  });

  it('session ids differing only in a lone surrogate are separate sessions', async () => {
    const dir = await tempDir();
    const w = desk(new FileCheckpointStore(dir));
    await w.session('a\uD800').run('high');
    await w.session('a\uDC00').run('low');
    const fresh = desk(new FileCheckpointStore(dir));
    const high = await fresh.session('a\uD800').messages();
    const low = await fresh.session('a\uDC00').messages();
    expect(high.map((m) => m.content)).toEqual(['high', 'echo: high', 'echo: high']);
    expect(low.map((m) => m.content)).toEqual(['low', 'echo: low', 'echo: low']);
  });
});

const everyStore: [
  string,
  () => Promise<{ store: CheckpointStore; close: () => Promise<void> } | undefined>,
][] = [];

describe('a 1 MB session id on every store', () => {
  const bigId = 'x'.repeat(1024 * 1024);
  const stores: [
    string,
    () => Promise<{ store: CheckpointStore; close: () => Promise<void> } | undefined>,
  ][] = [
    ['memory', async () => ({ store: new MemoryCheckpointStore(), close: async () => {} })],
    [
      'file',
      async () => {
        const dir = await tempDir();
        const store = new FileCheckpointStore(dir);
        return { store, close: () => store.close() };
      },
    ],
    [
      'postgres',
      async () => {
        const f = await openPostgres();
        return f && { store: f.a, close: f.close };
      },
    ],
    [
      'redis',
      async () => {
        const f = await openRedis();
        return f && { store: f.a, close: f.close };
      },
    ],
  ];
  everyStore.push(...stores);
  for (const [name, open] of stores) {
    it(`${name}: ConfigError, not a connection error`, async (ctx) => {
      const opened = await open();
      if (!opened) return ctx.skip();
      try {
        let error: unknown;
        try {
          await desk(opened.store).session(bigId).run('hi');
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as Error).message.length).toBeLessThan(2000);
      } finally {
        await opened.close();
      }
    }, 30_000);
  }
});

describe('FileCheckpointStore: two processes racing one session', () => {
  it('both processes only ever see success or SessionBusyError; the log loads with every winning turn', async () => {
    const { spawn } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const dir = await tempDir();
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const worker = bundledScript('test/independent/hardening-3/fixtures/file-race-worker.ts');
    const runOne = (label: string) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, [worker, dir, label, '25'], {
          cwd: root,
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('close', (code) => resolve({ code, out, err }));
      });
    const [p, q] = await Promise.all([runOne('p'), runOne('q')]);
    expect(p.err).toBe('');
    expect(q.err).toBe('');
    expect([p.code, q.code]).toEqual([0, 0]);
    const wins = [p, q].reduce((n, r) => n + Number(/done (\d+)/.exec(r.out)?.[1] ?? NaN), 0);
    const thread = await desk(new FileCheckpointStore(dir)).session('shared').messages();
    const tasks = thread.filter((m) => m.type === 'TextMessage' && m.source === 'user');
    const answers = thread.filter((m) => m.type === 'TextMessage' && m.source === 'helper');
    expect(tasks).toHaveLength(wins);
    expect(answers).toHaveLength(wins);
    for (const task of tasks) {
      expect(answers.some((a) => a.content === `echo: ${String(task.content)}`)).toBe(true);
    }
  }, 120_000);
});

describe('session ids differing only in a lone surrogate, on every store', () => {
  // PostgresCheckpointStore and RedisCheckpointStore refuse such an id with a ConfigError (found
  // here as a plain TypeError, fixed); the memory and file stores keep the two ids apart.
  for (const [name, open] of everyStore) {
    it(`${name}: separate sessions, or a ConfigError for such an id`, async (ctx) => {
      const opened = await open();
      if (!opened) return ctx.skip();
      try {
        const w = desk(opened.store);
        const high = await w
          .session('a\uD800')
          .run('high')
          .catch((e: unknown) => e);
        if (high instanceof Error) {
          expect(high).toBeInstanceOf(ConfigError);
          return;
        }
        await w.session('a\uDC00').run('low');
        const fresh = desk(opened.store);
        expect((await fresh.session('a\uD800').messages()).map((m) => m.content)).toEqual([
          'high',
          'echo: high',
          'echo: high',
        ]);
        expect((await fresh.session('a\uDC00').messages()).map((m) => m.content)).toEqual([
          'low',
          'echo: low',
          'echo: low',
        ]);
      } finally {
        await opened.close();
      }
    }, 30_000);
  }
});

describe('a 1 MB session id given to the store methods directly', () => {
  const bigId = 'y'.repeat(1024 * 1024);
  for (const [name, open] of everyStore) {
    it(`${name}: read, append, acquireLease, releaseLease and leaseHolder reject with ConfigError`, async (ctx) => {
      const opened = await open();
      if (!opened) return ctx.skip();
      try {
        const s = opened.store;
        const calls: [string, () => Promise<unknown>][] = [
          ['read', () => s.read(bigId)],
          ['append', () => s.append(bigId, { step: 1, snapshot: true, data: '{}' })],
          ['acquireLease', () => s.acquireLease(bigId, 'owner', 1000)],
          ['releaseLease', () => s.releaseLease(bigId, 'owner')],
          ['leaseHolder', () => s.leaseHolder(bigId)],
        ];
        for (const [op, call] of calls) {
          const error = await call().then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error, op).toBeInstanceOf(ConfigError);
        }
      } finally {
        await opened.close();
      }
    }, 30_000);
  }
});
