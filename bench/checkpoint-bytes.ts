// Bytes a checkpoint store holds after 50, 100 and 200 relay turns, next to the thread's own JSON
// size, and the time per committed step.
// Usage: checkpoint-bytes.ts <memory|file|postgres|redis> [--scenario relay|graph|team|selector]
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  type CheckpointStore,
  FileCheckpointStore,
  MemoryCheckpointStore,
  PostgresCheckpointStore,
  RedisCheckpointStore,
  type Runnable,
} from '../src/index.js';
import { benchArgs, checkScenario, countTurn, scenarioField } from './relay.js';
import { relayDesk, userTurn } from './relay-desk.js';
import { scenarioDesk } from './scenario-desks.js';
import { dropStatement } from '../src/checkpoint/postgres-sql.js';

const { positional, scenario } = benchArgs(process.argv.slice(2));
const kind = positional[0] ?? 'memory';
const sessionId = `bench-${process.pid}-${Date.now()}`;
const table = `bench_${process.pid}`;
let cleanup = async () => {};

async function open(): Promise<CheckpointStore> {
  if (kind === 'file') {
    const dir = await mkdtemp(join(tmpdir(), 'baton-bench-'));
    cleanup = () => rm(dir, { recursive: true, force: true });
    return new FileCheckpointStore(dir);
  }
  if (kind === 'postgres') {
    return new PostgresCheckpointStore({
      connectionString: 'postgres://postgres@127.0.0.1:5432/test',
      table,
    });
  }
  if (kind === 'redis')
    return new RedisCheckpointStore({
      url: 'redis://127.0.0.1:6379',
      keyPrefix: `bench${process.pid}:`,
    });
  return new MemoryCheckpointStore();
}

async function storedBytes(store: CheckpointStore): Promise<number> {
  if (store instanceof FileCheckpointStore) {
    // One file per record under each session's `.steps` folder (and the lease's folder).
    let total = 0;
    for (const entry of await readdir(store.directory, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
    }
    return total;
  }
  const records = await store.read(sessionId, { from: 'start' });
  return records.reduce((sum, r) => sum + Buffer.byteLength(r.data), 0);
}

const store = await open();
const workflow: Runnable =
  scenario === 'relay' ? relayDesk(store).workflow : scenarioDesk(scenario, store);
const session = workflow.session(sessionId);
const rows: unknown[] = [];
let steps = 0;
let elapsed = 0n;
for (let turn = 1; turn <= 200; turn++) {
  const before = (await session.info()).step;
  const start = process.hrtime.bigint();
  const result = await session.run(userTurn(turn));
  elapsed += process.hrtime.bigint() - start;
  countTurn(result.messages.length);
  steps += (await session.info()).step - before;
  if (turn === 10 || turn === 50 || turn === 100 || turn === 200) {
    const threadBytes = Buffer.byteLength(JSON.stringify(await session.messages()));
    const bytes = await storedBytes(store);
    rows.push({
      turns: turn,
      steps,
      threadBytes,
      storedBytes: bytes,
      ratio: bytes / threadBytes,
      msPerStep: Number(elapsed) / 1e6 / steps,
    });
  }
}
if (store instanceof PostgresCheckpointStore) {
  const pg = await import('pg');
  const client = new pg.default.Client({
    connectionString: 'postgres://postgres@127.0.0.1:5432/test',
  });
  await client.connect();
  await client.query(dropStatement(table));
  await client.end();
}
if (store instanceof RedisCheckpointStore) {
  const { Redis } = await import('ioredis');
  const redis = new Redis('redis://127.0.0.1:6379');
  const keys = await redis.keys(`bench${process.pid}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
}
await store.close();
await cleanup();
checkScenario(scenario, 200);
console.log(
  JSON.stringify({ bench: 'checkpoint-bytes', store: kind, ...scenarioField(scenario), rows }),
);
