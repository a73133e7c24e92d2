// Orchestration overhead per model call in the relay scenario: a 50-turn session after warm-up
// (p50, p90), and the time of turns 1–20 against turns 181–200 of a 200-turn session.
import { relayDesk, userTurn } from './relay-desk.js';

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

async function perCall(turns: number): Promise<{ p50: number; p90: number }> {
  const { workflow } = relayDesk();
  const session = workflow.session('overhead');
  const perTurn: number[] = [];
  for (let t = 1; t <= turns; t++) {
    const start = process.hrtime.bigint();
    await session.run(userTurn(t));
    perTurn.push(Number(process.hrtime.bigint() - start) / 1000 / 4);
  }
  const sorted = perTurn.slice(5).sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9) };
}

async function growth(): Promise<{ early: number; late: number }> {
  const { workflow } = relayDesk();
  const session = workflow.session('growth');
  const times: number[] = [];
  for (let t = 1; t <= 200; t++) {
    const start = process.hrtime.bigint();
    await session.run(userTurn(t));
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  const median = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      0.5,
    );
  return { early: median(times.slice(0, 20)), late: median(times.slice(180, 200)) };
}

for (let i = 0; i < 3; i++) await perCall(50); // warm-up
const call = await perCall(50);
const turns = await growth();
console.log(
  JSON.stringify({
    bench: 'relay-overhead',
    perCallP50Us: call.p50,
    perCallP90Us: call.p90,
    turn1to20Us: turns.early,
    turn181to200Us: turns.late,
    growth: turns.late / turns.early,
  }),
);
