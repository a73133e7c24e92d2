// Heap per paused session: 1,000 sessions, each paused after one relay turn (Baton: a handoff
// session awaiting the user's input; the peers: what they keep between turns — the history for
// OpenAI Agents, the checkpointer's thread for LangGraph). Needs `--expose-gc`.
// The graph and team scenarios keep a session that has finished its run and waits for the next task.
// Usage: node --expose-gc --import tsx paused-heap.ts [framework] [--scenario relay|graph|team|selector]
import {
  benchArgs,
  checkScenario,
  frameworkArg,
  openRelay,
  scenarioField,
  userTurn,
} from './relay.js';

const SESSIONS = 1000;
const { positional, scenario } = benchArgs(process.argv.slice(2));
const kind = frameworkArg(positional[0] ?? 'baton');
const gc = globalThis.gc;
if (gc === undefined) throw new Error('paused-heap.ts needs `node --expose-gc`.');

const settledHeap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const framework = await openRelay(kind, { scenario });
// Warm-up sessions run every code path, so that lazily built caches are in the baseline, and as
// many times as the measured ones: the machine code V8 compiles for a hot path (about 0.3 kB per
// session after only 20 warm-up sessions) is the process's, not any session's.
for (let i = 0; i < SESSIONS; i++) await framework.session(`warm-up-${i}`).run(userTurn(1));
const probe = framework.session('probe');
await probe.run(userTurn(1));
const threadJSON = await probe.threadJSON();
const threadBytes = Buffer.byteLength(threadJSON);

const before = settledHeap();
const kept: unknown[] = [];
for (let i = 0; i < SESSIONS; i++) {
  const session = framework.session(`paused-${i}`);
  await session.run(userTurn(1));
  kept.push(session.held());
}
const after = settledHeap();

// The thread's own size in memory: the same messages, rebuilt from JSON, 1,000 times.
const threadsBefore = settledHeap();
const threads: unknown[] = [];
for (let i = 0; i < SESSIONS; i++) threads.push(JSON.parse(threadJSON));
const threadHeapBytes = (settledHeap() - threadsBefore) / SESSIONS;
checkScenario(scenario, SESSIONS + 1 + SESSIONS);
console.log(
  JSON.stringify({
    bench: 'paused-heap',
    framework: kind,
    ...scenarioField(scenario),
    sessions: kept.length,
    heapPerSessionBytes: (after - before) / SESSIONS,
    threadHeapBytes,
    threadBytes,
  }),
);
threads.length = 0;
await framework.close();
