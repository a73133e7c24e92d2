// A team that never stops on its own, of agents that answer without I/O, run until SIGTERM:
// prints "running" once its agents have answered 100 times, then the run's status and stop
// reason, and exits with 143 (128 + SIGTERM). See test/scenarios/endless-team.test.ts.
import { RoundRobinGroupChat } from '../../src/orchestrations/teams/round-robin-group-chat.js';
import { instantAgent } from './instant-agent.js';

const controller = new AbortController();
process.once('SIGTERM', () => controller.abort());
const ready = (turns: number) => {
  if (turns === 50) process.stdout.write('running\n');
};
const team = new RoundRobinGroupChat([instantAgent('a', ready), instantAgent('b')]);
const result = await team.run('go on forever', { signal: controller.signal });
process.stdout.write(`${result.status} ${String(result.stopReason)}\n`);
process.exitCode = 143;
