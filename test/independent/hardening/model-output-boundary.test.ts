import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import fc from 'fast-check';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  AgentMessageSchema,
  type ChatClient,
  type CheckpointStore,
  FileCheckpointStore,
  HandoffBuilder,
  MemoryCheckpointStore,
  type ModelRequest,
  type ModelResult,
  PostgresCheckpointStore,
  RedisCheckpointStore,
  tool,
} from '../../../src/index.js';
import { dropStatement } from '../../../src/checkpoint/postgres-sql.js';

/**
 * Issue 12, item 2: whatever a ChatClient returns, what the run commits can be loaded again.
 * Model outputs with non-integer usage, empty tool names, calls without ids, non-string content
 * and arguments are run through a one-agent desk with a checkpoint store; then every session is
 * reloaded from a fresh workflow object and continued.
 */

const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = 'redis://127.0.0.1:6379';
const REQUIRE = process.env.BATON_REQUIRE_SERVICES === '1';

async function postgresUp(): Promise<boolean> {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await pool.query('SELECT 1');
    return true;
  } catch (error) {
    if (REQUIRE)
      throw new Error(`PostgreSQL is not reachable at 127.0.0.1:5432: ${String(error)}`, {
        cause: error,
      });
    return false;
  } finally {
    await pool.end();
  }
}

async function redisUp(): Promise<boolean> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 3_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.quit();
    return true;
  } catch (error) {
    client.disconnect();
    if (REQUIRE)
      throw new Error(`Redis is not reachable at 127.0.0.1:6379: ${String(error)}`, {
        cause: error,
      });
    return false;
  }
}

const PG = await postgresUp();
const REDIS = await redisUp();
const unique = () => randomBytes(6).toString('hex');

const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);
beforeEach(() => {
  rejections.length = 0;
  process.on('unhandledRejection', onRejection);
});
afterEach(() => {
  process.off('unhandledRejection', onRejection);
});

// ---- the desk ------------------------------------------------------------------------------------

const FINAL: ModelResult = {
  content: 'Which invoice?',
  toolCalls: [],
  usage: { promptTokens: 3, completionTokens: 2 },
};

/** A ChatClient written by someone else: it returns `outputs` as they are, then a plain question. */
function rawClient(outputs: readonly unknown[]): ChatClient {
  let next = 0;
  return {
    create(_request: ModelRequest): Promise<ModelResult> {
      const output = next < outputs.length ? outputs[next] : FINAL;
      next++;
      return Promise.resolve(structuredClone(output) as ModelResult);
    },
  };
}

/** A fresh workflow object over `store`, as another process would build it. */
function desk(store: CheckpointStore, outputs: readonly unknown[] = []) {
  const lookup = tool({
    name: 'lookup',
    description: 'Looks an invoice up.',
    parameters: z.object({ q: z.string() }),
    execute: async ({ q }) => `found ${q}`,
  });
  const helper = new Agent({
    name: 'helper',
    client: rawClient(outputs),
    tools: [lookup],
    maxToolIterations: 4,
  });
  return new HandoffBuilder({ name: 'boundary', participants: [helper] })
    .coordinator(helper)
    .withCheckpointing(store)
    .build();
}

/**
 * Runs `outputs` in session `id`, then reloads it from a fresh workflow object over `store`
 * and continues it: every committed state must load, validate and run on.
 */
async function runThenReload(store: CheckpointStore, id: string, outputs: readonly unknown[]) {
  const first = await desk(store, outputs).session(id).run('Where is my refund?');
  expect(first.status).toBe('awaiting_input');
  const written = await desk(store, outputs).session(id).messages();

  const reloaded = desk(store).session(id);
  const info = await reloaded.info();
  expect(info.status).toBe('awaiting_input');
  const loaded = await reloaded.messages();
  expect(loaded).toEqual(written);
  for (const message of loaded) {
    const parsed = AgentMessageSchema.safeParse(message);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  }
  // Every tool call has exactly one result with its id, ids are non-empty and unique.
  const calls = loaded.flatMap((m) => (m.type === 'ToolCallRequestEvent' ? m.content : []));
  const results = loaded.flatMap((m) => (m.type === 'ToolCallExecutionEvent' ? m.content : []));
  for (const call of calls) {
    expect(typeof call.id).toBe('string');
    expect(call.id).not.toBe('');
    expect(typeof call.arguments).toBe('string');
    expect(results.filter((r) => r.callId === call.id)).toHaveLength(1);
  }
  expect(new Set(calls.map((c) => c.id)).size).toBe(calls.length);
  for (const m of loaded) {
    if (m.usage === undefined) continue;
    for (const n of [m.usage.promptTokens, m.usage.completionTokens]) {
      expect(Number.isSafeInteger(n) && n >= 0, `usage ${n}`).toBe(true);
    }
  }
  const again = await reloaded.run('INV-1');
  expect(again.status).toBe('awaiting_input');
  expect(await desk(store).session(id).messages()).toHaveLength(
    loaded.length + again.messages.length,
  );
  await new Promise<void>((resolve) => setImmediate(resolve));
  expect(rejections).toEqual([]);
}

// ---- the outputs ----------------------------------------------------------------------------------

const usage = (promptTokens: unknown, completionTokens: unknown = 1) => ({
  promptTokens,
  completionTokens,
});

/** The four faults the issue names, each once. */
const named: [string, unknown[]][] = [
  [
    'non-integer usage (1.5 prompt tokens)',
    [{ content: 'Hello?', toolCalls: [], usage: usage(1.5, 2.25) }],
  ],
  [
    'an empty tool name',
    [{ content: null, toolCalls: [{ id: 'call_1', name: '', arguments: '{}' }], usage: usage(1) }],
  ],
  [
    'a tool call with no id',
    [
      {
        content: null,
        toolCalls: [{ name: 'lookup', arguments: '{"q":"INV-1"}' }],
        usage: usage(1),
      },
    ],
  ],
  ['non-string content (a number)', [{ content: 42, toolCalls: [], usage: usage(1) }]],
  ['non-string content (an object)', [{ content: { text: 'hi' }, toolCalls: [], usage: usage(1) }]],
  [
    'two calls with no id in one response',
    [
      {
        content: null,
        toolCalls: [
          { name: 'lookup', arguments: '{"q":"a"}' },
          { name: 'lookup', arguments: '{"q":"b"}' },
        ],
        usage: usage(1),
      },
    ],
  ],
  [
    'an empty-string id',
    [
      {
        content: null,
        toolCalls: [{ id: '', name: 'lookup', arguments: '{"q":"a"}' }],
        usage: usage(1),
      },
    ],
  ],
  [
    'arguments as an object',
    [
      {
        content: null,
        toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { q: 'a' } }],
        usage: usage(1),
      },
    ],
  ],
  ['negative and NaN usage', [{ content: 'Hello?', toolCalls: [], usage: usage(-3, Number.NaN) }]],
  ['no usage at all', [{ content: 'Hello?', toolCalls: [] }]],
];

const arbUsageNumber = fc.oneof(
  fc.nat(1_000_000),
  fc.double({ noNaN: false }),
  fc.constantFrom(1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '7', null, undefined),
);
const arbCall = fc.record(
  {
    id: fc.oneof(
      fc.uuid().map((u) => `call_${u}`),
      fc.constantFrom('', 'dup', 7, null, undefined),
    ),
    name: fc.constantFrom('lookup', 'lookup', '', ' ', 'no_such_tool', 5, undefined),
    arguments: fc.oneof(
      fc.constantFrom('{"q":"INV-1"}', '', 'not json', '[]', 'null', '{"q":5}', null, undefined, 3),
      fc.record({ q: fc.string() }),
      fc.string(),
    ),
  },
  { requiredKeys: [] },
);
const arbContent = fc.oneof(
  fc.string(),
  fc.constantFrom(null, undefined, 42, true, ['a'], { text: 'x' }),
);
/** Every field present with its type's shape; the values hostile. */
const arbOutput = fc.record({
  content: arbContent,
  toolCalls: fc.array(arbCall, { maxLength: 3 }),
  usage: fc.record({ promptTokens: arbUsageNumber, completionTokens: arbUsageNumber }),
});
/** Fields missing or null as well (a client written in plain JavaScript). */
const arbLooseOutput = fc.record(
  {
    content: arbContent,
    toolCalls: fc.oneof(fc.array(arbCall, { maxLength: 3 }), fc.constantFrom(undefined, null)),
    usage: fc.oneof(
      fc.record({ promptTokens: arbUsageNumber, completionTokens: arbUsageNumber }),
      fc.constantFrom(undefined, null),
    ),
    thought: fc.constantFrom(undefined, 'thinking', 42, null),
  },
  { requiredKeys: ['content'] },
);
const arbOutputs = fc.array(arbOutput, { minLength: 1, maxLength: 3 });
const arbLooseOutputs = fc.array(arbLooseOutput, { minLength: 1, maxLength: 3 });

// ---- the stores -----------------------------------------------------------------------------------

interface StoreCase {
  name: string;
  up: boolean;
  runs: number;
  open(): Promise<{ store: CheckpointStore; close(): Promise<void> }>;
}

const stores: StoreCase[] = [
  {
    name: 'MemoryCheckpointStore',
    up: true,
    runs: 60,
    open: async () => ({ store: new MemoryCheckpointStore(), close: async () => {} }),
  },
  {
    name: 'FileCheckpointStore',
    up: true,
    runs: 30,
    async open() {
      const dir = await mkdtemp(join(tmpdir(), 'baton-i12-boundary-'));
      const store = new FileCheckpointStore(dir);
      return {
        store,
        async close() {
          await store.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'PostgresCheckpointStore',
    up: PG,
    runs: 15,
    async open() {
      const table = `baton_i12_${unique()}`;
      const store = new PostgresCheckpointStore({ connectionString: DATABASE_URL, table });
      return {
        store,
        async close() {
          await store.close();
          const admin = new pg.Pool({ connectionString: DATABASE_URL });
          await admin.query(dropStatement(table));
          await admin.end();
        },
      };
    },
  },
  {
    name: 'RedisCheckpointStore',
    up: REDIS,
    runs: 15,
    async open() {
      const keyPrefix = `baton-i12-${unique()}:`;
      const store = new RedisCheckpointStore({ url: REDIS_URL, keyPrefix });
      return {
        store,
        async close() {
          await store.close();
          const admin = new Redis(REDIS_URL);
          const keys = await admin.keys(`${keyPrefix}*`);
          if (keys.length > 0) await admin.del(...keys);
          await admin.quit();
        },
      };
    },
  },
];

for (const s of stores) {
  describe.skipIf(!s.up)(`${s.name}: every committed model output loads again (item 2)`, () => {
    let opened: Awaited<ReturnType<StoreCase['open']>> | undefined;
    const store = async () => {
      opened ??= await s.open();
      return opened.store;
    };
    afterAll(async () => {
      await opened?.close();
    });

    for (const [what, outputs] of named) {
      it(`${what}: the run pauses normally and the session reloads`, async () => {
        await runThenReload(await store(), `named-${unique()}`, outputs);
      });
    }

    it(`property: random model outputs, then a reload from a fresh workflow object (${s.runs} runs)`, async () => {
      const target = await store();
      await fc.assert(
        fc.asyncProperty(arbOutputs, async (outputs) => {
          await runThenReload(target, `prop-${unique()}`, outputs);
        }),
        { numRuns: s.runs },
      );
    }, 120_000);

    it(`property: outputs with fields missing or null also pause normally and reload (${Math.ceil(s.runs / 3)} runs)`, async () => {
      const target = await store();
      await fc.assert(
        fc.asyncProperty(arbLooseOutputs, async (outputs) => {
          await runThenReload(target, `loose-${unique()}`, outputs);
        }),
        { numRuns: Math.ceil(s.runs / 3) },
      );
    }, 120_000);
  });
}
