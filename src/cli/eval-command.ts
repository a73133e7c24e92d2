import { readFile } from 'node:fs/promises';

import {
  evalRouting,
  NO_SPECIALIST,
  orchestrationOf,
  type RoutingCase,
  specialistsOf,
} from '../testing/routing-eval.js';
import { isRecord } from '../unknown-value.js';
import { type CommandSpec, subcommandArgs, UsageError } from './cli-args.js';
import { progressBar, routingText } from './routing-table.js';
import { loadWorkflowModule } from './workflow-module.js';

export const EVAL_ROUTING_SPEC: CommandSpec = {
  command: 'eval routing',
  options: [
    { name: 'min-accuracy', value: 'a number from 0 to 1', example: '--min-accuracy 0.9' },
    { name: 'concurrency', value: 'a positive integer', example: '--concurrency 4' },
    { name: 'json', value: '', example: '--json', flag: true },
  ],
  positionals: [
    { name: 'workflow module', example: 'baton eval routing desk.ts cases.jsonl' },
    { name: 'cases file', example: 'baton eval routing desk.ts cases.jsonl' },
  ],
};

export const EVAL_HELP = `Usage: baton eval routing <module> <cases.jsonl> [--min-accuracy <0..1>] [--concurrency <n>] [--json]

Measures where the workflow routes requests. Each line of the cases file is a JSON object
{"input": "text" or ["turn", "turn"], "expect": "<agent>"}; an array is one user turn per element,
and "expect": "none" says no specialist should answer (the coordinator keeps the case).
Each case runs in a fresh session with the workflow's own models until the first specialist's model
answers (its tools do not run). Prints the accuracy, a confusion matrix, and the model calls and
tokens of each case (and their cost, when the workflow's CostTermination prices its models); a
progress bar on a terminal.

  --min-accuracy <x>   exit with code 1 when the accuracy is below x
  --concurrency <n>    cases run at once (default 4)
  --json               print {accuracy, confusion, cases} as JSON instead
`;

/** Reads a cases file: one JSON object per non-empty line. */
export function parseCases(
  text: string,
  file: string,
  specialists: readonly string[],
): RoutingCase[] {
  const cases: RoutingCase[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const at = `baton eval routing: ${file} line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`${at} is not JSON. Write one {"input": ..., "expect": ...} per line.`);
    }
    const input = isRecord(value) ? value.input : undefined;
    const expected = isRecord(value) ? value.expect : undefined;
    const okInput =
      (typeof input === 'string' && input !== '') ||
      (Array.isArray(input) &&
        input.length > 0 &&
        input.every((t): t is string => typeof t === 'string' && t !== ''));
    if (!okInput || (typeof input !== 'string' && !Array.isArray(input))) {
      throw new UsageError(`${at}: "input" must be a non-empty string or array of strings.`);
    }
    const known = [...specialists, NO_SPECIALIST];
    if (typeof expected !== 'string' || !known.includes(expected)) {
      throw new UsageError(
        `${at}: "expect" must name a specialist (${specialists.join(', ')}) or "${NO_SPECIALIST}", ` +
          `got ${JSON.stringify(expected)}.`,
      );
    }
    cases.push({ input: typeof input === 'string' ? input : input.map(String), expect: expected });
  });
  if (cases.length === 0) throw new UsageError(`baton eval routing: ${file} holds no cases.`);
  return cases;
}

/** A number option within bounds, or a UsageError naming it. */
function numberOption(value: string | undefined, name: string, check: (n: number) => boolean) {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || !check(n)) {
    throw new UsageError(`baton eval routing: --${name} got "${value}". Run "baton eval --help".`);
  }
  return n;
}

/** `baton eval routing <module> <cases.jsonl>`. */
export async function evalCommand(argv: readonly string[]): Promise<number> {
  const args = subcommandArgs('eval', 'routing', EVAL_ROUTING_SPEC, EVAL_HELP, argv);
  if (typeof args === 'number') return args;
  const min = numberOption(
    args.options.get('min-accuracy'),
    'min-accuracy',
    (n) => n >= 0 && n <= 1,
  );
  const concurrency = numberOption(
    args.options.get('concurrency'),
    'concurrency',
    (n) => Number.isInteger(n) && n >= 1,
  );
  const path = args.positionals['workflow module'] ?? '';
  const file = args.positionals['cases file'] ?? '';
  const text = await readFile(file, 'utf8').catch(() => {
    throw new UsageError(`baton eval routing: cannot read the cases file "${file}".`);
  });
  const module = await loadWorkflowModule('eval routing', path);
  const orchestration = orchestrationOf(module.workflow);
  const { specialists } = specialistsOf(orchestration);
  const cases = parseCases(text, file, specialists);
  const tty = process.stderr.isTTY === true;
  const report = await evalRouting(orchestration, cases, {
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(tty
      ? { onCase: (done, total) => process.stderr.write(`\r${progressBar(done, total)}`) }
      : {}),
  });
  if (tty) process.stderr.write('\r\x1b[K');
  const { accuracy, confusion } = report;
  const json = { accuracy, confusion, cases: report.cases };
  process.stdout.write(
    args.options.has('json')
      ? `${JSON.stringify(json, null, 2)}\n`
      : routingText(module.name, report, specialists),
  );
  if (min !== undefined && accuracy < min) {
    process.stderr.write(
      `baton eval routing: accuracy ${accuracy.toFixed(3)} is below --min-accuracy ${min}.\n`,
    );
    return 1;
  }
  return 0;
}
