import { spawn } from 'node:child_process';
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPOSITORY } from '../../src/cli/links.js';
import { workflow as supportDesk } from '../../samples/support-desk.js';
import { workflow as reviewGraph } from '../../samples/review-graph.js';
import { addressesIn, repository, unresolvedAddresses } from '../support/repository-links.js';

const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules/tsx/dist/esm/index.mjs');
const scratch = () => mkdtempSync(join(tmpdir(), 'baton-cli-'));

/** Runs `baton <args>` as `npm start` runs the CLI (tsx, from src/), with `input` piped in. */
function baton(args: string[], options: { input?: string; cwd?: string } = {}) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(
      process.execPath,
      ['--import', tsx, join(root, 'src/cli/main.ts'), ...args],
      {
        cwd: options.cwd ?? root,
        env: { PATH: process.env.PATH ?? '' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(options.input ?? '');
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

/** Asserts bad input: exit code 2 and exactly `line` on stderr, no stack trace. */
async function refuses(args: string[], line: string | RegExp) {
  const run = await baton(args);
  expect(run.status).toBe(2);
  expect(run.stderr.split('\n')).toHaveLength(2);
  if (typeof line === 'string') expect(run.stderr).toBe(`${line}\n`);
  else expect(run.stderr).toMatch(line);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stdout).toBe('');
}

describe('baton CLI: bad input', { timeout: 60_000 }, () => {
  it('refuses a missing file, a directory and a missing module argument', async () => {
    await refuses(['run', 'samples/nope.ts'], 'baton run: no such file "samples/nope.ts".');
    await refuses(
      ['graph', 'samples'],
      'baton graph: "samples" is a directory, not a workflow module.',
    );
    await refuses(
      ['dev'],
      'baton dev: which workflow module? e.g. baton dev desk.ts. Run "baton dev --help".',
    );
  });

  it('refuses a module without a workflow export, or whose export is not one', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'plain.ts'), 'export const answer: number = 42;\n');
    writeFileSync(join(dir, 'wrong.ts'), 'export const workflow = { name: "not runnable" };\n');
    writeFileSync(join(dir, 'broken.ts'), 'export const workflow = {\n');
    writeFileSync(
      join(dir, 'unbuilt.ts'),
      `import { Agent, HandoffBuilder, ScriptedChatClient } from ${JSON.stringify(join(root, 'src/index.ts'))};\n` +
        "const helper = new Agent({ name: 'helper', client: new ScriptedChatClient([]) });\n" +
        'export const workflow = new HandoffBuilder({ participants: [helper] }).coordinator(helper);\n',
    );
    await refuses(
      ['run', join(dir, 'plain.ts')],
      `baton run: ${join(dir, 'plain.ts')} exports no workflow: export a built HandoffWorkflow or team as "workflow" (or as the default export).`,
    );
    await refuses(
      ['graph', join(dir, 'wrong.ts')],
      `baton graph: the "workflow" export of ${join(dir, 'wrong.ts')} is not a workflow or team (it has no session() method).`,
    );
    await refuses(
      ['graph', join(dir, 'unbuilt.ts')],
      `baton graph: the "workflow" export of ${join(dir, 'unbuilt.ts')} is a builder, not a workflow: did you forget .build()?`,
    );
    await refuses(
      ['run', join(dir, 'broken.ts')],
      /^baton run: .*broken\.ts could not be loaded: Transform failed with 1 error: .*broken\.ts:\d+:\d+: ERROR: .+\n$/,
    );
  });

  it('refuses bad flags with one line naming the flag', async () => {
    await refuses(
      ['run', 'samples/support-desk.ts', '--verbose'],
      'baton run: unknown argument "--verbose". Run "baton run --help".',
    );
    await refuses(
      ['run', 'samples/support-desk.ts', '--session'],
      'baton run: --session needs an id, e.g. --session 3f2a. Run "baton run --help".',
    );
    await refuses(
      ['graph', 'samples/support-desk.ts', 'samples/escalation.ts'],
      'baton graph: unknown argument "samples/escalation.ts". Run "baton graph --help".',
    );
    await refuses(
      ['dev', 'samples/support-desk.ts', '--port', '99999'],
      'baton dev: --port needs a port number from 0 to 65535, got "99999". Run "baton dev --help".',
    );
    await refuses(
      ['run', 'samples/support-desk.ts', '--store', '.baton'],
      'baton run: --store needs samples/support-desk.ts to export createWorkflow({ checkpointStore }); it exports only a built workflow, whose sessions are kept where its own withCheckpointing() says.',
    );
  });
});

describe('baton CLI: paths that cannot work', { timeout: 60_000 }, () => {
  it('refuses a module that is not a regular file, or too big to be one, without reading it', async () => {
    await refuses(
      ['run', '/dev/zero'],
      'baton run: "/dev/zero" is not a regular file (a device, pipe or socket), so it cannot be a workflow module.',
    );
    const big = join(scratch(), 'big.js');
    writeFileSync(big, '');
    truncateSync(big, 17 * 1024 * 1024);
    await refuses(
      ['graph', big],
      `baton graph: "${big}" is 17.0 MB, more than a workflow module's 16 MB: give the module that exports the workflow.`,
    );
  });

  it('refuses a --store that cannot be a directory before the session starts', async () => {
    await refuses(
      ['run', 'samples/devtools-desk.ts', '--store', 'package.json/x'],
      'baton run: --store "package.json/x" cannot be made: "package.json" is a file. Give a directory (it is made if missing).',
    );
    await refuses(
      ['dev', 'samples/devtools-desk.ts', '--store', 'package.json'],
      'baton dev: --store "package.json" is a file, not a directory. Give a directory (it is made if missing).',
    );
  });

  it('suggests the flag a misspelt one was meant to be', async () => {
    await refuses(
      ['run', 'samples/support-desk.ts', '--sesion', 'x'],
      'baton run: unknown argument "--sesion": did you mean --session? Run "baton run --help".',
    );
  });

  it('shows control characters of a bad argument instead of sending them to the terminal', async () => {
    await refuses(['run', 'x\x1b[2J\ry.ts'], 'baton run: no such file "x\\x1b[2J\\ry.ts".');
  });
});

describe('baton CLI: commands', { timeout: 60_000 }, () => {
  it('describes every command with --help', async () => {
    const top = await baton(['--help']);
    expect(top.status).toBe(0);
    for (const command of [
      'run <module>',
      'graph <module>',
      'dev <module>',
      'serve <module>',
      'demo',
    ]) {
      expect(top.stdout).toContain(`baton ${command}`);
    }
    for (const command of ['run', 'graph', 'dev', 'serve', 'demo']) {
      const help = await baton([command, '--help']);
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: baton ${command}`));
    }
  });

  it('names in its help only addresses of the repository that exist', async () => {
    const commands = [
      [],
      ...['init', 'run', 'graph', 'dev', 'serve', 'worker', 'demo'].map((c) => [c]),
    ];
    commands.push(['test', 'record'], ['eval', 'routing']);
    const printed: string[] = [];
    for (const command of commands) {
      const help = await baton([...command, '--help']);
      expect(help.status).toBe(0);
      printed.push(...addressesIn(help.stdout));
    }
    expect(new Set(printed)).toEqual(
      new Set([
        `${repository}/tree/main/samples`,
        `${repository}#readme`,
        `${repository}/blob/main/docs/serving.md`,
        `${repository}/blob/main/docs/workers.md`,
        'http://127.0.0.1:8787',
        'http://127.0.0.1:<port',
      ]),
    );
    // The loopback addresses are the lines the commands print, not links.
    expect(unresolvedAddresses(printed, (a) => a.startsWith('http://127.0.0.1:'))).toEqual([]);
    expect(REPOSITORY).toBe(repository);
  });

  it('prints the Mermaid graph of a handoff workflow and of a team', async () => {
    const desk = await baton(['graph', 'samples/support-desk.ts']);
    expect(desk.stderr).toBe('');
    expect(desk.stdout).toBe(supportDesk.toMermaid());
    const team = await baton(['graph', 'samples/writer-critic.ts']);
    expect(team.stdout).toContain('flowchart LR\n');
    expect(team.stdout).toContain('  n_writer -->|next| n_critic\n  n_critic -->|next| n_writer\n');
  });

  it('prints the Mermaid graph of a graph workflow and runs it to completion', async () => {
    const drawn = await baton(['graph', 'samples/review-graph.ts']);
    expect(drawn.stderr).toBe('');
    expect(drawn.stdout).toBe(reviewGraph.toMermaid());
    const run = await baton(['run', 'samples/review-graph.ts'], { input: 'Write a blurb\n' });
    expect([run.status, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toContain(
      '---------- TextMessage (translator_german) ----------\nGerman: Planen Sie',
    );
    expect(run.stdout).toMatch(
      /Number of messages: 8\nFinish reason: Digraph execution is complete\n/,
    );
  });

  it('runs a module in the terminal with piped replies, and says it cannot resume it', async () => {
    const run = await baton(['run', 'samples/support-desk.ts', '--session', 'desk-1'], {
      input: 'I was charged twice for INV-1001\nyes please\nthanks, bye\n',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(
      'Session desk-1 lives in this process only: the workflow has no checkpoint store',
    );
    expect(run.stdout).toContain('you> yes please\n');
    expect(run.stdout).toContain('refund_duplicate_charge: {"invoiceId":"INV-1001","refunded":49}');
    expect(run.stdout).toMatch(/Finish reason: Text 'bye' mentioned\n/);
  });

  it("answers a swarm's handoff to the user with a handoff back", async () => {
    const run = await baton(['run', 'samples/travel-swarm.ts'], {
      input: 'I need to refund my flight.\nThe reference is BA-2417.\n',
    });
    // The reply goes back as a handoff to the agent that asked, which goes on with it; the
    // user's own line is not printed again under a header.
    expect(run.stdout).toContain(
      'you> The reference is BA-2417.\n---------- ToolCallRequestEvent (flights_refunder) ----------\nrefund_flight({"flightId":"BA-2417"})\n',
    );
    expect(run.stdout).not.toContain('HandoffMessage (user)');
    expect(run.stdout).toContain('refund_flight: Flight BA-2417 refunded');
    expect(run.stdout).toMatch(/Finish reason: Text 'TERMINATE' mentioned\n/);
  });

  it('resumes a session from --store in a later process', async () => {
    const cwd = scratch();
    const module = join(root, 'samples/devtools-desk.ts');
    const first = await baton(['run', module, '--store', 'sessions', '--session', 't1'], {
      cwd,
      input: 'I was charged twice for INV-1001\n',
    });
    expect(first.stdout).toContain(
      `Session t1 is saved in sessions/; resume it with: baton run ${module} --store sessions --session t1`,
    );
    const second = await baton(['run', module, '--store=sessions', '--session', 't1'], {
      cwd,
      input: 'yes please\nbye\n',
    });
    expect(second.stderr).toBe('');
    expect(second.stdout).toContain('Resuming session t1: 8 messages so far (awaiting_input).\n');
    expect(second.stdout).toContain(
      'billing asked: INV-1001 ($49) was charged twice. Shall I refund the duplicate?\n',
    );
    expect(second.stdout).toContain('Done: $49 refunded on INV-1001. Anything else?');
  });

  it('serves the devtools and prints exactly one line; Ctrl-C stops it with exit code 130', async () => {
    const child = spawn(
      process.execPath,
      ['--import', tsx, join(root, 'src/cli/main.ts'), 'dev', 'samples/support-desk.ts'],
      { cwd: root, env: { PATH: process.env.PATH ?? '' } },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const line = await new Promise<string>((done) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('\n')) done(stdout);
      });
    });
    expect(line).toMatch(
      /^Baton devtools: http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32}\n$/,
    );
    const url = line.slice('Baton devtools: '.length).trim();
    expect((await fetch(url)).status).toBe(200);
    expect((await fetch(url.replace(/\?token=.*/, ''))).status).toBe(401);
    const status = await new Promise<number | null>((done) => {
      child.on('close', done);
      child.kill('SIGINT');
    });
    expect(status).toBe(130);
    expect(stdout).toBe(line);
    expect(stderr).toBe('');
  });
});
