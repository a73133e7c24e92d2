// Where the wall time of bench/concurrent.ts goes: the same 1,000 sessions × 2 turns, with the
// process's CPU time, the event loop's utilisation, the garbage collector's pauses, the time to
// open the 1,000 session handles alone, and when the last first turn and the last second turn
// ended. `--latency 0` runs the same load with instant models: its wall time is the CPU floor.
// Usage: concurrent-breakdown.ts [framework] [--scenario relay|graph|team|selector] [--latency ms]
import { PerformanceObserver, performance } from 'node:perf_hooks';

import {
  benchArgs,
  checkScenario,
  frameworkArg,
  modelCalls,
  openRelay,
  userTurn,
} from './relay.js';

const SESSIONS = 1000;
const TURNS = 2;
const latencyAt = process.argv.indexOf('--latency');
const latencyMs = latencyAt === -1 ? 20 : Number(process.argv[latencyAt + 1]);
const { positional, scenario } = benchArgs(
  process.argv.slice(2).filter((_, i, all) => all[i] !== '--latency' && all[i - 1] !== '--latency'),
);
const kind = frameworkArg(positional[0] ?? 'baton');

const framework = await openRelay(kind, { latencyMs, scenario });
const turnEnds: number[][] = Array.from({ length: TURNS }, () => []);
const conversation = async (id: string, t0: number) => {
  const session = framework.session(id);
  for (let t = 1; t <= TURNS; t++) {
    await session.run(userTurn(t));
    turnEnds[t - 1]?.push(performance.now() - t0);
  }
};

await Promise.all(Array.from({ length: 20 }, (_, i) => conversation(`warm-up-${i}`, 0)));
for (const ends of turnEnds) ends.length = 0;

// Opening handles alone (no run), on a second workflow that is then dropped.
const spare = await openRelay(kind, { latencyMs, scenario });
for (let i = 0; i < 20; i++) spare.session(`warm-up-${i}`);
const openStart = performance.now();
for (let i = 0; i < SESSIONS; i++) spare.session(`handle-only-${i}`);
const openHandlesMs = performance.now() - openStart;
await spare.close();

let gcMs = 0;
let gcCount = 0;
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcMs += entry.duration;
    gcCount++;
  }
});
observer.observe({ entryTypes: ['gc'] });

const callsBefore = modelCalls.count;
const cpuBefore = process.cpuUsage();
const eluBefore = performance.eventLoopUtilization();
const start = performance.now();
const running = Array.from({ length: SESSIONS }, (_, i) => conversation(`session-${i}`, start));
// Everything before the first await of each run: the burst that starts 1,000 sessions.
const startBurstMs = performance.now() - start;
await Promise.all(running);
const wallMs = performance.now() - start;
const elu = performance.eventLoopUtilization(eluBefore);
const cpu = process.cpuUsage(cpuBefore);
// Let the observer deliver the last entries.
await new Promise((resolve) => setTimeout(resolve, 50));
observer.disconnect();
const calls = modelCalls.count - callsBefore;
checkScenario(scenario, (20 + SESSIONS) * TURNS);
const cpuMs = (cpu.user + cpu.system) / 1000;
console.log(
  JSON.stringify({
    bench: 'concurrent-breakdown',
    framework: kind,
    scenario,
    latencyMs,
    sessions: SESSIONS,
    calls,
    wallMs,
    idealMs: latencyMs * 4 * TURNS,
    cpuMs,
    cpuPerCallUs: (cpuMs * 1000) / calls,
    eventLoopUtilization: elu.utilization,
    gcMs,
    gcCount,
    openHandlesMs,
    startBurstMs,
    lastFirstTurnMs: Math.max(...(turnEnds[0] ?? [])),
    firstFirstTurnMs: Math.min(...(turnEnds[0] ?? [])),
    lastSecondTurnMs: Math.max(...(turnEnds[1] ?? [])),
  }),
);
await framework.close();
