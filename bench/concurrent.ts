// Throughput of 1,000 concurrent relay sessions, 2 turns each, with a model that takes 20 ms per
// call: the wall time against the ideal of 20 ms × 4 calls × 2 turns, which only a framework that
// costs nothing would reach. Usage: concurrent.ts [framework] [--scenario relay|graph|team|selector]
import {
  benchArgs,
  checkScenario,
  frameworkArg,
  modelCalls,
  openRelay,
  scenarioField,
  userTurn,
} from './relay.js';

const SESSIONS = 1000;
const TURNS = 2;
const LATENCY_MS = 20;
const { positional, scenario } = benchArgs(process.argv.slice(2));
const kind = frameworkArg(positional[0] ?? 'baton');

const framework = await openRelay(kind, { latencyMs: LATENCY_MS, scenario });
const conversation = async (id: string) => {
  const session = framework.session(id);
  for (let t = 1; t <= TURNS; t++) await session.run(userTurn(t));
};

await Promise.all(Array.from({ length: 20 }, (_, i) => conversation(`warm-up-${i}`)));
const callsBefore = modelCalls.count;
const start = process.hrtime.bigint();
await Promise.all(Array.from({ length: SESSIONS }, (_, i) => conversation(`session-${i}`)));
const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
if (modelCalls.count - callsBefore !== SESSIONS * TURNS * 4) {
  throw new Error(
    `${modelCalls.count - callsBefore} model calls; expected ${SESSIONS * TURNS * 4}.`,
  );
}
checkScenario(scenario, (20 + SESSIONS) * TURNS);
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
    turnsPerSecond: (SESSIONS * TURNS) / (wallMs / 1000),
  }),
);
await framework.close();
