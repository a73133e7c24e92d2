import { landedRight, NO_SPECIALIST, type RoutingReport } from '../testing/routing-eval.js';

/** A progress bar for a terminal: `[#####-----] 5/10 cases`. */
export function progressBar(done: number, total: number, width = 30): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} cases`;
}

/** Columns padded to the widest cell; `left` says which are text (the others are numbers). */
function table(rows: readonly (readonly string[])[], left: (column: number) => boolean): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (left(i) ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** A case's input on one line, at most 50 characters. */
function shown(input: string | readonly string[]): string {
  const text = (typeof input === 'string' ? input : input.join(' | ')).replace(/\s+/g, ' ');
  return text.length > 50 ? `${text.slice(0, 49)}…` : text;
}

/**
 * The report as text: accuracy, the confusion matrix (rows: expected; columns: where the cases
 * landed, `none` when no specialist answered), and each case's model calls and tokens.
 */
export function routingText(
  name: string,
  report: RoutingReport,
  specialists: readonly string[],
): string {
  const right = report.cases.filter(landedRight).length;
  const total = report.cases.length;
  const landed = new Set(report.cases.map((c) => c.actual));
  const columns = [
    ...specialists.filter((s) => landed.has(s) || report.confusion[s] !== undefined),
    ...[...landed].filter((a): a is string => a !== null && !specialists.includes(a)),
  ];
  const header = ['expected \\ actual', ...columns, ...(landed.has(null) ? ['none'] : [])];
  // Rows in the workflow's order of specialists, `none` last.
  const order = (expected: string) =>
    expected === NO_SPECIALIST ? specialists.length : specialists.indexOf(expected);
  const rows = Object.keys(report.confusion)
    .sort((a, b) => order(a) - order(b))
    .map((expected) => {
      const row = report.confusion[expected] ?? {};
      const counts = columns.map((c) => String(row[c] ?? 0));
      return [expected, ...counts, ...(landed.has(null) ? [String(row.null ?? 0)] : [])];
    });
  // Cost is shown when the workflow prices its models (a CostTermination).
  const priced = report.cases.some((c) => c.costUsd !== undefined);
  const cases = report.cases.map((c, i) => [
    String(i + 1),
    c.expect,
    c.actual ?? 'none',
    landedRight(c) ? 'ok' : 'MISS',
    String(c.calls),
    String(c.tokens.prompt),
    String(c.tokens.completion),
    ...(priced ? [c.costUsd === undefined ? '?' : `$${c.costUsd.toFixed(6)}`] : []),
    shown(c.input) + (c.error === undefined ? '' : `  (error: ${c.error})`),
  ]);
  const heads = ['#', 'expected', 'actual', '', 'calls', 'prompt', 'completion'];
  const caseHeads = [...heads, ...(priced ? ['cost'] : []), 'input'];
  return [
    `Routing of ${name}: accuracy ${report.accuracy.toFixed(3)} (${right} of ${total} cases)`,
    '',
    'Confusion matrix (rows: expected, columns: actual)',
    ...table([header, ...rows], (i) => i === 0),
    '',
    ...table(
      [caseHeads, ...cases],
      (i) => i === 1 || i === 2 || i === 3 || i === caseHeads.length - 1,
    ),
    '',
  ].join('\n');
}
