// Issue 33: a team whose termination condition never fires, of agents that answer without I/O,
// must still let the event loop run every so many turns, so that timers, aborts and signal handlers
// can end it. Each in-process run has `maxTurns` as a backstop: were the loop starved, the run
// would end by that limit (status "terminated") instead of hanging the test worker.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

import type { ChatAgent } from '../../src/agents/chat-agent.js';
import type { Runnable } from '../../src/engine/runnable.js';
import { RoundRobinGroupChat } from '../../src/orchestrations/teams/round-robin-group-chat.js';
import { SelectorGroupChat } from '../../src/orchestrations/teams/selector-group-chat.js';
import { Swarm } from '../../src/orchestrations/teams/swarm.js';
import { ExternalTermination } from '../../src/termination/control-conditions.js';
import type { TerminationCondition } from '../../src/termination/termination-condition.js';
import { instantAgent } from '../support/instant-agent.js';

const BACKSTOP = 2_000;

type TeamOptions = { terminationCondition?: TerminationCondition; maxTurns: number };
const teams: [string, (agents: ChatAgent[], options: TeamOptions) => Runnable][] = [
  ['RoundRobinGroupChat', (agents, options) => new RoundRobinGroupChat(agents, options)],
  [
    'SelectorGroupChat',
    (agents, options) =>
      new SelectorGroupChat(agents, {
        ...options,
        allowRepeatedSpeaker: true,
        selectorFunc: (thread) => (thread.at(-1)?.source === 'a' ? 'b' : 'a'),
      }),
  ],
  ['Swarm', (agents, options) => new Swarm(agents, options)],
];

describe.each(teams)('%s that never stops on its own', (_, makeTeam) => {
  it('is cancelled by an abort a timer schedules', async () => {
    const team = makeTeam([instantAgent('a'), instantAgent('b')], { maxTurns: BACKSTOP });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 0);
    const result = await team.run('go on forever', { signal: controller.signal });
    expect([result.status, result.stopReason]).toEqual(['cancelled', null]);
    expect(result.messages.length).toBeLessThan(BACKSTOP);
  });

  it('is stopped by an ExternalTermination a timer sets', async () => {
    const stop = new ExternalTermination();
    const team = makeTeam([instantAgent('a'), instantAgent('b')], {
      terminationCondition: stop,
      maxTurns: BACKSTOP,
    });
    setTimeout(() => stop.set(), 0);
    const result = await team.run('go on forever');
    expect([result.status, result.stopReason]).toEqual([
      'terminated',
      'External termination requested',
    ]);
  });
});

describe('a process running a team that never stops on its own', () => {
  const root = resolve(import.meta.dirname, '../..');
  const tsx = join(root, 'node_modules/tsx/dist/esm/index.mjs');

  it(
    'handles SIGTERM: the run ends cancelled and the process exits',
    { timeout: 60_000 },
    async () => {
      // A small heap: were the loop starved, the endless thread would end the child by running out
      // of memory (a different exit) rather than by growing for as long as the test waits.
      const child = spawn(
        process.execPath,
        ['--max-old-space-size=256', '--import', tsx, 'test/support/endless-team-worker.ts'],
        { cwd: root, env: { PATH: process.env.PATH ?? '' } },
      );
      try {
        let stdout = '';
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        const closed = new Promise<number | null>((done) => child.on('close', done));
        await new Promise<void>((running) => {
          child.stdout.on('data', (chunk: Buffer) => {
            stdout += chunk.toString();
            if (stdout.includes('\n')) running();
          });
        });
        child.kill('SIGTERM');
        expect(await closed).toBe(143);
        expect(stdout).toBe('running\ncancelled null\n');
        expect(stderr).toBe('');
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    },
  );
});
