// The "Tracing (issue 16)" section of bench/RESULTS.md: the relay with @opentelemetry/api absent,
// installed without an SDK, and with an SDK and an in-memory exporter, side by side in one run.
// The three set-ups alternate over several rounds of fresh child processes and each figure is the
// median over the rounds, so that a burst of load on a shared machine does not land on one set-up.
// Run alone (`npx tsx bench/tracing-section.ts`) it prints the section; bench/run.ts includes it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { median } from './relay.js';

type Mode = 'absent' | 'api' | 'sdk';
type Figures = {
  perCallP50Us?: number;
  perCallP90Us?: number;
  cpuPerCallUs?: number;
  spansPerCall?: number;
};

const here = import.meta.dirname;
const tsx = join(here, '..', 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
const hide = join(here, '..', 'test', 'support', 'hide-opentelemetry.cjs');

function measure(mode: Mode): Figures {
  const preload = mode === 'absent' ? ['--require', hide] : [];
  const run = spawnSync(
    process.execPath,
    [...preload, '--import', tsx, join(here, 'tracing-overhead.ts'), mode],
    { encoding: 'utf8' },
  );
  const line = run.stdout.trim().split('\n').at(-1);
  if (run.status !== 0 || line === undefined || line === '') {
    console.error(
      `tracing-overhead.ts ${mode} failed:\n${run.stderr.trim().split('\n').slice(0, 8).join('\n')}`,
    );
    return {};
  }
  return JSON.parse(line) as Figures;
}

/** Measures `rounds` rounds of the three set-ups and returns the section's lines. */
export function tracingSection(rounds = 3): string[] {
  const modes: Mode[] = ['absent', 'api', 'sdk'];
  const runs: Record<Mode, Figures[]> = { absent: [], api: [], sdk: [] };
  for (let round = 0; round < rounds; round++)
    for (const mode of modes) runs[mode].push(measure(mode));
  const med = (mode: Mode, key: keyof Figures) => {
    const values = runs[mode].map((f) => f[key]).filter((v): v is number => typeof v === 'number');
    return values.length === 0 ? undefined : median(values);
  };
  const us = (v: number | undefined) => (v === undefined ? 'n/a' : `${v.toFixed(1)} µs`);
  const pct = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined || b === 0 ? 'n/a' : `${(((a - b) / b) * 100).toFixed(1)} %`;
  const absentP50 = med('absent', 'perCallP50Us');
  const apiP50 = med('api', 'perCallP50Us');
  const within =
    absentP50 !== undefined && apiP50 !== undefined ? apiP50 <= absentP50 * 1.1 : undefined;
  const lines = [
    '## Tracing (issue 16)',
    '',
    `The relay desk (50-turn session after warm-up, 4 model calls a turn), ${rounds} rounds of fresh child`,
    'processes alternating the three set-ups; each figure is the median over the rounds. "CPU per call" is',
    "the process's user + system time over the timed turns divided by the model calls.",
    '',
    '| set-up | per call p50 | p90 | CPU per call | vs absent (p50) | vs absent (CPU) | spans per call |',
    '|---|---|---|---|---|---|---|',
  ];
  const label: Record<Mode, string> = {
    absent: '`@opentelemetry/api` not installed',
    api: '`@opentelemetry/api` installed, no SDK',
    sdk: 'SDK: in-memory exporter, simple processor, AsyncLocalStorage context, meter provider',
  };
  for (const mode of modes) {
    lines.push(
      `| ${label[mode]} | ${us(med(mode, 'perCallP50Us'))} | ${us(med(mode, 'perCallP90Us'))} | ` +
        `${us(med(mode, 'cpuPerCallUs'))} | ${mode === 'absent' ? '—' : pct(med(mode, 'perCallP50Us'), absentP50)} | ` +
        `${mode === 'absent' ? '—' : pct(med(mode, 'cpuPerCallUs'), med('absent', 'cpuPerCallUs'))} | ` +
        `${(med(mode, 'spansPerCall') ?? 0).toFixed(2)} |`,
    );
  }
  const sdkCost =
    med('sdk', 'perCallP50Us') !== undefined && absentP50 !== undefined
      ? (med('sdk', 'perCallP50Us') as number) - absentP50
      : undefined;
  lines.push(
    '',
    `Budget (issue 16): installed without an SDK, per call p50 within 10 % of not installed: ` +
      `${within === undefined ? 'n/a' : within ? 'yes' : '**no**'}. With the SDK each model call costs ` +
      `${us(sdkCost)} more (p50), for ${(med('sdk', 'spansPerCall') ?? 0).toFixed(2)} spans per call ` +
      '(a chat span per call, an agent span per turn of one call, a workflow span per 4 calls).',
    '',
  );
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(tracingSection(Number(process.argv[2] ?? 3)).join('\n'));
}
