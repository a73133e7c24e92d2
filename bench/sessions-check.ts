// `checkSessions()` (what `baton sessions check` runs) over many stored sessions: the store is
// seeded with sessions paused for input (a handoff desk: the user's message, the specialist's
// question), then a build with a compatible change (one more participant: another fingerprint, so
// every session goes through the take-over checks) checks them all. Seeding is not timed.
// Usage: npx tsx bench/sessions-check.ts [--store file|postgres] [--sessions 10000]
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg from 'pg';

import {
  type ChatAgent,
  type CheckpointStore,
  checkSessions,
  FileCheckpointStore,
  HandoffBuilder,
  handoffMessage,
  PostgresCheckpointStore,
  textMessage,
} from '../src/index.js';
import { dropStatement } from '../src/checkpoint/postgres-sql.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : (args[at + 1] ?? fallback);
};
const kind = option('store', 'file');
const sessions = Number(option('sessions', '10000'));
const POSTGRES_URL =
  process.env.BATON_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** An agent that answers at once (no model): the coordinator hands off, the specialist asks. */
const agent = (name: string, handoff?: string): ChatAgent => ({
  name,
  description: name,
  respond: async () => ({
    chatMessage:
      handoff === undefined
        ? textMessage({ source: name, content: `${name}: which invoice?` })
        : handoffMessage({ source: name, target: handoff, content: `Transferred to ${handoff}.` }),
  }),
});

const desk = (store: CheckpointStore, extra: boolean) =>
  new HandoffBuilder({
    name: 'desk',
    participants: [
      agent('triage', 'billing'),
      agent('billing'),
      ...(extra ? [agent('sales')] : []),
    ],
  })
    .coordinator('triage')
    .withCheckpointing(store, { sessionCacheSize: 10 })
    .build();

async function open(): Promise<{ store: CheckpointStore; close(): Promise<void> }> {
  if (kind === 'postgres') {
    const table = `baton_bench_check_${randomBytes(4).toString('hex')}`;
    const store = new PostgresCheckpointStore({ connectionString: POSTGRES_URL, table });
    return {
      store,
      async close() {
        await store.close();
        const admin = new pg.Pool({ connectionString: POSTGRES_URL });
        await admin.query(dropStatement(table));
        await admin.end();
      },
    };
  }
  const directory = await mkdtemp(join(tmpdir(), 'baton-bench-check-'));
  const store = new FileCheckpointStore(directory);
  return {
    store,
    async close() {
      await store.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

const { store, close } = await open();
try {
  const writer = desk(store, false);
  const seedStart = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < sessions) {
        const id = `s-${String(next++).padStart(5, '0')}`;
        await writer.session(id).run('My invoice is wrong');
      }
    }),
  );
  const seedSeconds = (performance.now() - seedStart) / 1000;

  const start = performance.now();
  const report = await checkSessions(desk(store, true), store);
  const seconds = (performance.now() - start) / 1000;
  const failing = report.filter((s) => !s.ok).length;
  if (report.length !== sessions || failing !== 0) {
    throw new Error(
      `checked ${report.length} sessions, ${failing} failing; expected ${sessions} ok`,
    );
  }
  console.log(
    `${kind}: ${sessions} sessions checked in ${seconds.toFixed(1)} s ` +
      `(${((seconds * 1e6) / sessions).toFixed(0)} µs per session; seeding took ${seedSeconds.toFixed(1)} s)`,
  );
} finally {
  await close();
}
