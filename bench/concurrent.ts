// Throughput of 1,000 concurrent relay sessions, 2 turns each, with a model that takes 20 ms per
// call: the wall time against the ideal of 20 ms × 4 calls × 2 turns, which only a framework that
// costs nothing would reach. Four bursts of 1,000 sessions: the first in a fresh process (`wallMs`),
// the median of the other three once the process is warm (`warmWallMs`). Usage: concurrent.ts [framework] [--scenario relay|graph|team|selector]
import {
  benchArgs,
  checkScenario,
  frameworkArg,
  median,
  modelCalls,
  openRelay,
  scenarioField,
  userTurn,
} from './relay.js';

const SESSIONS = 1000;
const TURNS = 2;
const LATENCY_MS = 20;
const BURSTS = 4;
const { positional, scenario } = benchArgs(process.argv.slice(2));
const kind = frameworkArg(positional[0] ?? 'baton');

const framework = await openRelay(kind, { latencyMs: LATENCY_MS, scenario });
const conversation = async (id: string) => {
  const session = framework.session(id);
  for (let t = 1; t <= TURNS; t++) await session.run(userTurn(t));
};

await Promise.all(Array.from({ length: 20 }, (_, i) => conversation(`warm-up-${i}`)));
const callsBefore = modelCalls.count;
// The first burst meets a process that has barely run the framework (V8 still compiling its hot
// path on other threads); the later ones a process that has served 1,000 sessions at once before,
// as a server has. Both are reported: `wallMs` the first, `warmWallMs` the median of the others.
const bursts: number[] = [];
for (let b = 0; b < BURSTS; b++) {
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: SESSIONS }, (_, i) => conversation(`burst-${b}-session-${i}`)),
  );
  bursts.push(Number(process.hrtime.bigint() - start) / 1e6);
}
const wallMs = bursts[0] as number;
const warmWallMs = median(bursts.slice(1));
if (modelCalls.count - callsBefore !== BURSTS * SESSIONS * TURNS * 4) {
  throw new Error(
    `${modelCalls.count - callsBefore} model calls; expected ${BURSTS * SESSIONS * TURNS * 4}.`,
  );
}
checkScenario(scenario, (20 + BURSTS * SESSIONS) * TURNS);
const idealMs = LATENCY_MS * 4 * TURNS;
console.log(
  JSON.stringify({
    bench: 'concurrent',
    framework: kind,
    ...scenarioField(scenario),
    sessions: SESSIONS,
    turns: TURNS,
    wallMs,
    idealMs,
    wallOverIdeal: wallMs / idealMs,
    warmWallMs,
    warmOverIdeal: warmWallMs / idealMs,
    turnsPerSecond: (SESSIONS * TURNS) / (wallMs / 1000),
  }),
);
await framework.close();
