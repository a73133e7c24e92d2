import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  FileCheckpointStore,
  HandoffBuilder,
  Agent,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
} from '../../src/index.js';
import { refund } from '../support/versions-desk-module.js';

const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules/tsx/dist/esm/index.mjs');
const module = join(root, 'test/support/versions-desk-module.ts');

/** `baton sessions check <module> <args>` with VD_BUILD=`build`: its exit code and output. */
function check(build: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', tsx, join(root, 'src/cli/main.ts'), 'sessions', 'check', module, ...args],
      { cwd: root, env: { PATH: process.env.PATH ?? '', VD_BUILD: build } },
      (error, stdout, stderr) =>
        done({ code: error === null ? 0 : Number(error.code), out: stdout + stderr }),
    );
  });
}

describe('baton sessions check', () => {
  let directory = '';
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'baton-sessions-check-'));
    const store = new FileCheckpointStore(directory);
    const desk = (script: ReturnType<typeof scriptedText>[]) =>
      new HandoffBuilder({
        name: 'desk',
        participants: [
          new Agent({ name: 'triage', client: new ScriptedChatClient(script.slice(0, 1)) }),
          new Agent({
            name: 'billing',
            client: new ScriptedChatClient(script.slice(1)),
            tools: [refund],
          }),
        ],
      })
        .coordinator('triage')
        .withCheckpointing(store)
        .build();
    await desk([scriptedText('Who are you?')])
      .session('asks')
      .run('hello');
    await desk([scriptedToolCall('handoff_to_billing'), scriptedToolCall('refund', { amount: 5 })])
      .session('refunds')
      .run('refund me');
    await store.close();
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('names the sessions a build cannot take over and exits 1', async () => {
    const { code, out } = await check('no-refund', ['--store', directory]);
    expect({ code, lines: out.trim().split('\n').sort() }).toEqual({
      code: 1,
      lines: [
        '2 sessions checked: 1 ok, 1 would fail.',
        'FAIL refunds: Session "refunds" cannot be taken over by this workflow: its pending request names tool "refund" of agent "billing", which this workflow does not have. Run it with the workflow that wrote it until it ends, or delete it.',
        'ok asks',
      ],
    });
  });

  it('prints JSON with --json, and exits 0 when every session is ok', async () => {
    const { code, out } = await check('same', ['--store', directory, '--json']);
    expect(code).toBe(0);
    const report = (JSON.parse(out) as { sessionId: string }[]).sort((a, b) =>
      a.sessionId.localeCompare(b.sessionId),
    );
    expect(report).toEqual([
      { sessionId: 'asks', ok: true },
      { sessionId: 'refunds', ok: true },
    ]);
  });
});
