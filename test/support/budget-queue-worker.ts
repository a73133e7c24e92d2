// A worker process of test/integration/workers-budget-kill.test.ts: the cost desk (each call
// reserves and costs $0.10 and takes a second) with a tenant cap, on the engine's store and queue.
import { Agent } from '../../src/agents/agent.js';
import { ScriptedChatClient, scriptedText } from '../../src/models/scripted-chat-client.js';
import { HandoffBuilder } from '../../src/orchestrations/handoff/handoff-builder.js';
import { CostTermination } from '../../src/termination/cost-termination.js';
import { BullMQDispatcher } from '../../src/workers/bullmq-dispatcher.js';
import { PgBossDispatcher } from '../../src/workers/pg-boss-dispatcher.js';
import { startWorker } from '../../src/workers/start-worker.js';
import { PostgresCheckpointStore } from '../../src/checkpoint/postgres-checkpoint-store.js';
import { RedisCheckpointStore } from '../../src/checkpoint/redis-checkpoint-store.js';
import { DESK_PRICES } from './cost-desk.js';

// The stores and queues of test/support/queue-desk.ts, made here: that module is a worker script
// itself, started when it is loaded.
const PG_URL = process.env.BATON_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BATON_TEST_REDIS ?? 'redis://127.0.0.1:6379';

const [engine, storeName, queue, cap] = process.argv.slice(2);
if (engine === undefined || storeName === undefined || queue === undefined || cap === undefined) {
  throw new Error('usage: budget-queue-worker <engine> <store name> <queue> <cap>');
}
const client = new ScriptedChatClient(
  async () => {
    // The test kills a worker that says it is in a model call.
    process.stdout.write('calling\n');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return scriptedText('answer', { promptTokens: 50, completionTokens: 10 });
  },
  { model: 'desk-model', maxCompletionTokens: 10 },
);
const workflow = new HandoffBuilder({ participants: [new Agent({ name: 'desk', client })] })
  .coordinator('desk')
  .withCheckpointing(
    engine === 'redis'
      ? new RedisCheckpointStore({ url: REDIS_URL, keyPrefix: `${storeName}:` })
      : new PostgresCheckpointStore({ connectionString: PG_URL, table: storeName }),
  )
  .withTerminationCondition(new CostTermination({ maxUsd: 100, prices: DESK_PRICES }))
  .build();
await startWorker(workflow, {
  dispatcher:
    engine === 'redis'
      ? new BullMQDispatcher(
          {
            connection: {
              host: new URL(REDIS_URL).hostname,
              port: Number(new URL(REDIS_URL).port),
            },
          },
          { queue, lockDurationMs: 4000 },
        )
      : new PgBossDispatcher({ connectionString: PG_URL }, { queue, max: 3 }),
  concurrency: 4,
  budgets: { perTenantPerDayUsd: Number(cap) },
});
process.stdout.write('ready\n');
