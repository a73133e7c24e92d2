// Orchestration overhead per model call in the relay scenario, for one framework: µs per model
// call over a 50-turn session after a warm-up session (p50, p90), then a 200-turn session timed
// turn by turn (turns 1–20 against 181–200), with the thread's JSON and the persisted bytes taken
// after turns 50, 100 and 200 (outside the timed turns).
// Usage: relay-overhead.ts [framework] [--scenario relay|graph|team|selector]
import {
  benchArgs,
  checkScenario,
  frameworkArg,
  median,
  openRelay,
  percentile,
  scenarioField,
  threadBytes,
  userTurn,
} from './relay.js';

const { positional, scenario } = benchArgs(process.argv.slice(2));
const kind = frameworkArg(positional[0] ?? 'baton');
let turnsRun = 0;

async function perCall(): Promise<{ p50: number; p90: number }> {
  const framework = await openRelay(kind, { scenario });
  // Warm-up: 50-turn sessions, three of them or as many as start within 3 s.
  const warmUpEnd = performance.now() + 3000;
  for (let i = 0; i < 3 && performance.now() < warmUpEnd; i++) {
    const warmUp = framework.session(`warm-up-${i}`);
    for (let t = 1; t <= 50; t++) await warmUp.run(userTurn(t));
    turnsRun += 50;
  }
  const session = framework.session('overhead');
  const perTurn: number[] = [];
  for (let t = 1; t <= 50; t++) {
    const start = process.hrtime.bigint();
    await session.run(userTurn(t));
    perTurn.push(Number(process.hrtime.bigint() - start) / 1000 / 4);
  }
  turnsRun += 50;
  await framework.close();
  const sorted = perTurn.slice(5).sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9) };
}

// A fresh framework, so that its store holds this session alone.
async function growth() {
  const framework = await openRelay(kind, { scenario });
  const session = framework.session('growth');
  const times: number[] = [];
  const bytes: { turns: number; threadBytes: number; persistedBytes: number | undefined }[] = [];
  for (let t = 1; t <= 200; t++) {
    const start = process.hrtime.bigint();
    await session.run(userTurn(t));
    times.push(Number(process.hrtime.bigint() - start) / 1000);
    if (t === 50 || t === 100 || t === 200) {
      bytes.push({
        turns: t,
        threadBytes: await threadBytes(session),
        persistedBytes: await session.persistedBytes(),
      });
    }
  }
  turnsRun += 200;
  await framework.close();
  return { early: median(times.slice(0, 20)), late: median(times.slice(180, 200)), bytes };
}

const call = await perCall();
const turns = await growth();
checkScenario(scenario, turnsRun);
console.log(
  JSON.stringify({
    bench: 'relay-overhead',
    framework: kind,
    ...scenarioField(scenario),
    perCallP50Us: call.p50,
    perCallP90Us: call.p90,
    turn1to20Us: turns.early,
    turn181to200Us: turns.late,
    growth: turns.late / turns.early,
    bytes: turns.bytes,
  }),
);
