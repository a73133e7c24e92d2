// Writes test/support/file-seconds.json, the seconds each slow test file took, from a vitest JSON
// report: `npx vitest run --reporter=json --outputFile.json=report.json`, then
// `node scripts/file-seconds.mjs report.json`. The test sequencer starts the longest files first.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

const [reportPath] = process.argv.slice(2);
if (reportPath === undefined) {
  console.error('usage: node scripts/file-seconds.mjs <vitest JSON report>');
  process.exit(2);
}
/** Files quicker than this are left to vitest's own order: only the long ones decide the end. */
const AT_LEAST_SECONDS = 3;
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const seconds = Object.fromEntries(
  report.testResults
    .map((file) => [relative(process.cwd(), file.name), (file.endTime - file.startTime) / 1000])
    .filter(([, s]) => s >= AT_LEAST_SECONDS)
    .sort(([, a], [, b]) => b - a)
    .map(([name, s]) => [name, Math.round(s)]),
);
writeFileSync('test/support/file-seconds.json', `${JSON.stringify(seconds, null, 2)}\n`);
console.log(`${Object.keys(seconds).length} files of ${AT_LEAST_SECONDS} s or more`);
