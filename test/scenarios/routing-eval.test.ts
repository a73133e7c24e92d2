import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { progressBar } from '../../src/cli/routing-table.js';

// API.md §19 `baton eval routing`: a scripted classifier with known mistakes (test/support/
// routing-desk.ts) over test/fixtures/routing-cases.jsonl; the CLI runs as a child process.

const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules/tsx/dist/esm/index.mjs');

function baton(...args: string[]) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(
      process.execPath,
      ['--import', tsx, join(root, 'src/cli/main.ts'), ...args],
      {
        cwd: root,
        env: { PATH: process.env.PATH ?? '' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end();
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

const desk = 'test/support/routing-desk.ts';
const cases = 'test/fixtures/routing-cases.jsonl';
const scratch = mkdtempSync(join(tmpdir(), 'baton-eval-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('baton eval routing', () => {
  it('prints the accuracy, the exact confusion matrix and each case, and exits 1 below the minimum', async () => {
    const run = await baton(
      'eval',
      'routing',
      desk,
      cases,
      '--min-accuracy',
      '0.9',
      '--concurrency',
      '3',
    );
    expect(run.stdout).toBe(
      [
        'Routing of routing-desk: accuracy 0.714 (5 of 7 cases)',
        '',
        'Confusion matrix (rows: expected, columns: actual)',
        'expected \\ actual  billing  technical  account  none',
        'billing                  2          0        0     0',
        'technical                0          2        0     1',
        'account                  1          0        1     0',
        '',
        '#  expected   actual           calls  prompt  completion  input',
        '1  billing    billing    ok        2      20           5  Where is my invoice?',
        '2  billing    billing    ok        2      20           5  I want a refund',
        '3  technical  technical  ok        2      20           5  My internet is slow',
        '4  technical  none       MISS      1      10           3  The app crashes',
        '5  account    billing    MISS      2      20           5  I forgot my password',
        '6  account    account    ok        2      20           5  My account is locked',
        '7  technical  technical  ok        3      30           8  hello | my wifi is down',
        '',
      ].join('\n'),
    );
    expect(run.stderr).toBe('baton eval routing: accuracy 0.714 is below --min-accuracy 0.9.\n');
    expect(run.status).toBe(1);
    const enough = await baton('eval', 'routing', desk, cases, '--min-accuracy', '0.7');
    expect(enough.status).toBe(0);
  }, 60_000);

  it('prints the §19 JSON with --json', async () => {
    const run = await baton('eval', 'routing', desk, cases, '--json');
    expect(run.status).toBe(0);
    const case_ = (
      input: string | string[],
      expected: string,
      actual: string | null,
      calls: number,
    ) => ({
      input,
      expect: expected,
      actual,
      calls,
      tokens: { prompt: 10 * calls, completion: calls === 1 ? 3 : calls === 2 ? 5 : 8 },
    });
    expect(JSON.parse(run.stdout)).toEqual({
      accuracy: 5 / 7,
      confusion: {
        billing: { billing: 2 },
        technical: { technical: 2, null: 1 },
        account: { billing: 1, account: 1 },
      },
      cases: [
        case_('Where is my invoice?', 'billing', 'billing', 2),
        case_('I want a refund', 'billing', 'billing', 2),
        case_('My internet is slow', 'technical', 'technical', 2),
        case_('The app crashes', 'technical', null, 1),
        case_('I forgot my password', 'account', 'billing', 2),
        case_('My account is locked', 'account', 'account', 2),
        case_(['hello', 'my wifi is down'], 'technical', 'technical', 3),
      ],
    });
  }, 60_000);

  it('counts a case that expects "none" right when no specialist answers', async () => {
    const file = join(scratch, 'none.jsonl');
    writeFileSync(
      file,
      [
        '{"input": "hello there", "expect": "none"}',
        '{"input": "Where is my invoice?", "expect": "none"}',
        '{"input": "My internet is slow", "expect": "technical"}',
        '',
      ].join('\n'),
    );
    const run = await baton('eval', 'routing', desk, file, '--min-accuracy', '0.6');
    expect(run.stdout).toBe(
      [
        'Routing of routing-desk: accuracy 0.667 (2 of 3 cases)',
        '',
        'Confusion matrix (rows: expected, columns: actual)',
        'expected \\ actual  billing  technical  none',
        'technical                0          1     0',
        'none                     1          0     1',
        '',
        '#  expected   actual           calls  prompt  completion  input',
        '1  none       none       ok        1      10           3  hello there',
        '2  none       billing    MISS      2      20           5  Where is my invoice?',
        '3  technical  technical  ok        2      20           5  My internet is slow',
        '',
      ].join('\n'),
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const json = await baton('eval', 'routing', desk, file, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      accuracy: 2 / 3,
      confusion: { none: { null: 1, billing: 1 }, technical: { technical: 1 } },
    });
  }, 60_000);

  it('names the line of a bad case and the specialists an expect may name', async () => {
    const file = join(scratch, 'bad.jsonl');
    writeFileSync(
      file,
      '{"input": "hi", "expect": "billing"}\n\n{"input": "hi", "expect": "sales"}\n',
    );
    const run = await baton('eval', 'routing', desk, file);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      `baton eval routing: ${file} line 3: "expect" must name a specialist (billing, technical, account) or "none", got "sales".\n`,
    );
    writeFileSync(file, '{"input": [], "expect": "billing"}\n');
    expect((await baton('eval', 'routing', desk, file)).stderr).toBe(
      `baton eval routing: ${file} line 1: "input" must be a non-empty string or array of strings.\n`,
    );
  }, 60_000);

  it('draws a progress bar', () => {
    expect(progressBar(0, 4, 8)).toBe('[--------] 0/4 cases');
    expect(progressBar(3, 4, 8)).toBe('[######--] 3/4 cases');
    expect(progressBar(4, 4, 8)).toBe('[########] 4/4 cases');
  });
});

describe('samples/demo-desk.routing.jsonl', () => {
  it('is routed right by the demo desk with its offline model', async () => {
    const run = await baton(
      'eval',
      'routing',
      'samples/demo-desk.ts',
      'samples/demo-desk.routing.jsonl',
      '--min-accuracy',
      '1',
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe(
      'Routing of support-desk: accuracy 1.000 (10 of 10 cases)',
    );
  }, 60_000);
});
