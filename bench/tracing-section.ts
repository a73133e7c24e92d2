// The "Tracing (issue 16)" section of bench/RESULTS.md: the relay with @opentelemetry/api absent,
// installed without an SDK, and with an SDK and an in-memory exporter, side by side in one run.
// The three set-ups alternate over several rounds of fresh child processes and each figure is the
// median over the rounds, so that a burst of load on a shared machine does not land on one set-up.
// Run alone (`npx tsx bench/tracing-section.ts`) it prints the section; bench/run.ts includes it.
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
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

type Layer = { bareNs?: number; absentNs?: number; apiNs?: number; sdkNs?: number };

function measureLayer(): Layer {
  const run = spawnSync(process.execPath, ['--import', tsx, join(here, 'tracing-layer.ts')], {
    encoding: 'utf8',
  });
  const line = run.stdout.trim().split('\n').at(-1);
  if (run.status !== 0 || line === undefined || line === '') {
    console.error(
      `tracing-layer.ts failed:\n${run.stderr.trim().split('\n').slice(0, 8).join('\n')}`,
    );
    return {};
  }
  return JSON.parse(line) as Layer;
}

/** Measures `rounds` rounds of the three set-ups and returns the section's lines. */
export function tracingSection(rounds = 3): string[] {
  const load = loadavg()[0] ?? 0;
  const modes: Mode[] = ['absent', 'api', 'sdk'];
  const runs: Record<Mode, Figures[]> = { absent: [], api: [], sdk: [] };
  // The order alternates (absent first, then api first) so that neither always runs second.
  for (let round = 0; round < rounds; round++) {
    const order: Mode[] = round % 2 === 0 ? ['absent', 'api', 'sdk'] : ['api', 'absent', 'sdk'];
    for (const mode of order) runs[mode].push(measure(mode));
  }
  const med = (mode: Mode, key: keyof Figures) => {
    const values = runs[mode].map((f) => f[key]).filter((v): v is number => typeof v === 'number');
    return values.length === 0 ? undefined : median(values);
  };
  const us = (v: number | undefined) => (v === undefined ? 'n/a' : `${v.toFixed(1)} µs`);
  const pct = (r: number | undefined) =>
    r === undefined ? 'n/a' : `${((r - 1) * 100).toFixed(1)} %`;
  const absentP50 = med('absent', 'perCallP50Us');
  // Each round's set-ups ran one after another, under much the same load from other processes:
  // the median of the per-round ratios cancels most of that load.
  const ratio = (mode: Mode, key: keyof Figures) => {
    const values: number[] = [];
    runs[mode].forEach((f, i) => {
      const base = runs.absent[i]?.[key];
      const value = f[key];
      if (typeof base === 'number' && typeof value === 'number' && base > 0)
        values.push(value / base);
    });
    return values.length === 0 ? undefined : median(values);
  };
  const apiRatio = ratio('api', 'perCallP50Us');
  const within = apiRatio === undefined ? undefined : apiRatio <= 1.1;
  const lines = [
    '## Tracing (issue 16)',
    '',
    `The relay desk (50-turn session after warm-up, 4 model calls a turn), ${rounds} rounds of fresh child`,
    'processes alternating the three set-ups; each figure is the median over the rounds, each "vs absent"',
    'the median of the rounds\' own ratios (neighbouring runs share the load). "CPU per call" is',
    "the process's user + system time over the timed turns divided by the model calls. Load average",
    `when the run began: ${load.toFixed(1)} (${cpus().length} cores); on a busy machine wall times swell, compare the rows.`,
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
        `${us(med(mode, 'cpuPerCallUs'))} | ${mode === 'absent' ? '—' : pct(ratio(mode, 'perCallP50Us'))} | ` +
        `${mode === 'absent' ? '—' : pct(ratio(mode, 'cpuPerCallUs'))} | ` +
        `${(med(mode, 'spansPerCall') ?? 0).toFixed(2)} |`,
    );
  }
  const layers = [measureLayer(), measureLayer(), measureLayer()];
  const layer = (key: keyof Layer) => {
    const values = layers.map((l) => l[key]).filter((v): v is number => typeof v === 'number');
    return values.length === 0 ? 'n/a' : `${Math.round(median(values)).toLocaleString('en-US')} ns`;
  };
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
    'The tracing layer alone (bench/tracing-layer.ts: one process, an async no-op traced 20,000 times per',
    'round, 15 rounds interleaving the set-ups; median of 3 processes): per traced operation',
    `${layer('bareNs')} untraced, ${layer('absentNs')} with the API absent, ${layer('apiNs')} installed without`,
    `an SDK, ${layer('sdkNs')} with an SDK (simple processor, an exporter that drops the spans).`,
    '',
  );
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(tracingSection(Number(process.argv[2] ?? 3)).join('\n'));
}
