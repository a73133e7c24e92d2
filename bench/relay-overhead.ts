// Orchestration overhead per model call in the relay scenario, for one framework: µs per model
// call over a 50-turn session after warm-up sessions (p50, p90); then growth: three 200-turn
// sessions of the same (warm) framework, run turn by turn in turn, their turns 1–20 against turns
// 181–200 (medians of the pooled turns); then one 200-turn session of a fresh framework, with the
// thread's JSON and the persisted bytes taken after turns 50, 100 and 200 (outside the timed turns).
//
// Growth is pooled because one session's per-turn medians are not a slope but levels: the turns
// that fall in an incremental marking phase of the collector cost about half as much again, and
// whether turns 181–200 fall in one decided a single session's figure (0.8× to 2.4× for the same
// code, bench/RESULTS.md). Interleaved sessions put every turn number in every phase alike.
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

async function perCall(): Promise<{ p50: number; p90: number; early: number; late: number }> {
  const framework = await openRelay(kind, { scenario });
  // Warm-up: 50-turn sessions, forty of them or as many as start within 20 s. A process is not in
  // its steady state before it has run about 1,500 relay turns (V8 optimising the hot code and
  // growing its young generation; bench/RESULTS.md): Baton's turns cost 3–4× more in the first
  // hundred turns, and after 600 turns still 1.5×.
  const warmUpEnd = performance.now() + 20_000;
  for (let i = 0; i < 40 && performance.now() < warmUpEnd; i++) {
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
  const sorted = perTurn.slice(5).sort((a, b) => a - b);
  const pooled = await pooledGrowth(framework);
  await framework.close();
  return { p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9), ...pooled };
}

const GROWTH_SESSIONS = 3;

/** Turns 1–20 and 181–200 of three 200-turn sessions run turn by turn in turn (µs a turn). */
async function pooledGrowth(framework: Awaited<ReturnType<typeof openRelay>>) {
  const sessions = Array.from({ length: GROWTH_SESSIONS }, (_, i) =>
    framework.session(`growth-${i}`),
  );
  const early: number[] = [];
  const late: number[] = [];
  for (let t = 1; t <= 200; t++) {
    for (const session of sessions) {
      const start = process.hrtime.bigint();
      await session.run(userTurn(t));
      const us = Number(process.hrtime.bigint() - start) / 1000;
      if (t <= 20) early.push(us);
      if (t > 180) late.push(us);
    }
  }
  turnsRun += 200 * GROWTH_SESSIONS;
  return { early: median(early), late: median(late) };
}

// A fresh framework, so that its store holds this session alone: the bytes it persists, and the
// growth of one session as measured before (`growthOneSession`).
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
    turn1to20Us: call.early,
    turn181to200Us: call.late,
    growth: call.late / call.early,
    growthOneSession: turns.late / turns.early,
    bytes: turns.bytes,
  }),
);
