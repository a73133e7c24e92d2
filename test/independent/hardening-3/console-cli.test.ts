// Hostile terminal output: raw control characters in tool arguments; bad CLI inputs.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import {
  Console,
  type TaskResult,
  type AgentMessage,
  textMessage,
  toolCallExecutionEvent,
  toolCallRequestEvent,
} from '../../../src/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RAW = 'CR-HERE\rESC-HERE\u001b[2JBEL\u0007END';

describe('Console', () => {
  it('tool arguments containing \\r or \\x1b[2J never reach the output raw', async () => {
    const messages: AgentMessage[] = [
      textMessage({ source: 'user', content: `task ${RAW}` }),
      toolCallRequestEvent({
        source: 'helper',
        content: [{ id: 'c1', name: `note${RAW}`, arguments: `{"text":"${RAW}"}` }],
      }),
      toolCallExecutionEvent({
        source: 'helper',
        content: [{ callId: 'c1', name: 'note', content: `result ${RAW}`, isError: false }],
      }),
      textMessage({ source: 'helper', content: `answer ${RAW}` }),
    ];
    async function* stream(): AsyncIterable<AgentMessage | TaskResult> {
      yield* messages;
      yield {
        type: 'TaskResult',
        messages,
        stopReason: `stop ${RAW}`,
        status: 'terminated',
        sessionId: 's',
        usage: { promptTokens: 0, completionTokens: 0 },
      };
    }
    const lines: string[] = [];
    await Console(stream(), { write: (l) => lines.push(l), outputStats: true, clock: () => 0 });
    const out = lines.join('');
    expect(out).toContain('CR-HERE');
    expect(out).not.toContain('\r');
    expect(out).not.toContain('\u001b');
    // With colour on, the only escapes are Console's own colour codes (ESC [ digits m).
    const coloured: string[] = [];
    await Console(stream(), {
      write: (l) => coloured.push(l),
      color: true,
      outputStats: true,
      clock: () => 0,
    });
    const colouredOut = coloured.join('');
    expect(colouredOut).not.toContain('\r');
    expect(colouredOut).not.toContain('\u001b[2J');
    expect(
      colouredOut.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), ''),
    ).not.toContain('\u001b');
    expect(out).not.toContain('\u0007');
    for (const line of lines) expect(line.indexOf('\n')).toBe(line.length - 1);
  });
});

function baton(args: string[], input = '') {
  return spawnSync(process.execPath, ['bin/baton.js', ...args], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
    timeout: 90_000,
    env: { ...process.env, NO_COLOR: '1', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' },
  });
}

describe('baton run', () => {
  it('tool arguments with raw control characters never reach stdout/stderr raw', () => {
    const r = baton(['run', 'test/independent/hardening-3/fixtures/hostile-args.ts'], 'hello\n');
    const out = r.stdout + r.stderr;
    expect(out).toContain('CR-HERE');
    expect(out).not.toContain('\u001b[2J');
    expect(out).not.toMatch(/CR-HERE\r/);
    expect(out).not.toContain('\u0007');
  }, 120_000);

  it('`baton run /dev/zero` exits 2 with one clear line', () => {
    const r = baton(['run', '/dev/zero']);
    expect(r.error).toBeUndefined();
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('/dev/zero');
  }, 120_000);

  for (const args of [
    ['run', '/'],
    ['graph', '/dev/zero'],
    ['run', '/dev/null'],
    ['run', 'no/such/module.ts'],
  ]) {
    it(`\`baton ${args.join(' ')}\` exits 2 with one line`, () => {
      const r = baton(args);
      expect(r.error).toBeUndefined();
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }, 120_000);
  }

  it('`--store <a regular file>/x` exits 2 with one clear line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'baton-h3-cli-'));
    try {
      const file = join(dir, 'plain.txt');
      await writeFile(file, 'not a directory');
      const r = baton(['run', 'samples/devtools-desk.ts', '--store', `${file}/x`], 'hi\nbye\n');
      expect(r.error).toBeUndefined();
      expect(r.status).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`${file}/x`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
