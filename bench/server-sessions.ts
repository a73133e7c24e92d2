// A long-running server: one team object with a checkpoint store and sessionCacheSize 1,000 serves
// SESSIONS conversations of 3 turns each. Users come back: sessions are served in blocks of 2,000,
// turn by turn, so a session's next turn finds it dropped from memory and reloaded from the store.
// Heap (after GC) is read after 10,000 sessions and after all of them. Needs `--expose-gc` and the
// Redis server of DEVELOPERS.md (the store must live outside the heap being measured).
// Usage: node --expose-gc --import tsx server-sessions.ts [sessions]
import { randomBytes } from 'node:crypto';

import { Redis } from 'ioredis';

import type { AgentContext, AgentResponse, ChatAgent } from '../src/agents/chat-agent.js';
import { RedisCheckpointStore } from '../src/checkpoint/redis-checkpoint-store.js';
import { textMessage } from '../src/messages/message-factories.js';
import { RoundRobinGroupChat } from '../src/orchestrations/teams/round-robin-group-chat.js';

const SESSIONS = Number(process.argv[2] ?? 100_000);
const BLOCK = 2_000;
const CONCURRENCY = 50;
const TURNS = 3;
const REDIS_URL = process.env.BATON_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const gc = globalThis.gc;
if (gc === undefined) throw new Error('server-sessions.ts needs `node --expose-gc`.');

const settledHeap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const agent: ChatAgent = {
  name: 'assistant',
  description: 'answers',
  async respond(ctx: AgentContext): Promise<AgentResponse> {
    return {
      chatMessage: textMessage({
        source: 'assistant',
        content: `Answer ${ctx.conversation.length} for ${ctx.sessionId}`,
      }),
    };
  },
};

const keyPrefix = `baton-bench-${randomBytes(6).toString('hex')}:`;
const store = new RedisCheckpointStore({ url: REDIS_URL, keyPrefix });
const team = new RoundRobinGroupChat([agent], {
  maxTurns: 1,
  checkpointStore: store,
  sessionCacheSize: 1_000,
});

async function serve(from: number, to: number): Promise<void> {
  for (let block = from; block < to; block += BLOCK) {
    const end = Math.min(block + BLOCK, to);
    for (let turn = 1; turn <= TURNS; turn++) {
      let next = block;
      const worker = async () => {
        while (next < end) {
          const i = next++;
          const result = await team.session(`s-${i}`).run(`Question ${turn} of user ${i}`);
          if (result.messages.length !== 2)
            throw new Error(`session s-${i} turn ${turn} lost messages`);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    }
  }
}

const began = performance.now();
const checkpointAt = Math.min(10_000, SESSIONS);
await serve(0, checkpointAt);
const heapAt10k = settledHeap();
const inMemoryAt10k = team.sessionsInMemory;
await serve(checkpointAt, SESSIONS);
const heapAtEnd = settledHeap();
const wallMs = performance.now() - began;
const check = await team.session('s-0').messages();

console.error(`cleaning up ${keyPrefix}*`);
await store.close();
const admin = new Redis(REDIS_URL);
let cursor = '0';
do {
  const [nextCursor, keys] = await admin.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 5000);
  if (keys.length > 0) await admin.del(...keys);
  cursor = nextCursor;
} while (cursor !== '0');
await admin.quit();

console.log(
  JSON.stringify({
    bench: 'server-sessions',
    sessions: SESSIONS,
    turns: TURNS,
    sessionCacheSize: 1_000,
    heapAt10kBytes: heapAt10k,
    heapAtEndBytes: heapAtEnd,
    heapRatio: heapAtEnd / heapAt10k,
    sessionsInMemoryAt10k: inMemoryAt10k,
    sessionsInMemoryAtEnd: team.sessionsInMemory,
    firstSessionMessages: check.length,
    wallMs,
  }),
);
