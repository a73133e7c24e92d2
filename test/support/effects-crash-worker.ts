/**
 * The child of the tool-effects crash matrix (see effects-crash-workflow.ts):
 * `node --import tsx test/support/effects-crash-worker.ts '<json>'` with `{case, kill, task}` runs
 * session `case.session` of the case's workflow (`task`: `"start"` asks for the batch, `"approve"` approves
 * every call awaiting approval) and SIGKILLs itself at `kill`. A run the kill point never
 * reaches ends normally and prints its status.
 */
import type { CheckpointRecord, CheckpointStore } from '../../src/index.js';
import { approve } from '../../src/index.js';
import {
  type CrashCase,
  crashWorkflow,
  isStart,
  type KillPoint,
  openStore,
} from './effects-crash-workflow.js';

const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
};

async function main(): Promise<void> {
  const {
    case: c,
    kill,
    task,
  } = JSON.parse(process.argv[2] ?? '{}') as {
    case: CrashCase;
    kill: KillPoint;
    task: 'start' | 'approve';
  };
  const inner = openStore(c);
  let executed = false;
  const store: CheckpointStore = new Proxy(inner, {
    get(target, key, receiver) {
      if (key !== 'append') {
        const value: unknown = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (id: string, record: CheckpointRecord, options?: unknown) => {
        const start = isStart(record);
        if (start && kill === 'before-start') die();
        if (executed && kill === 'after-execute') die();
        const done = await target.append(id, record, options as never);
        if (start && kill === 'after-start') die();
        if (executed && kill === 'after-result') die();
        return done;
      };
    },
  });
  let logged = 0;
  const workflow = crashWorkflow(c, store, {
    afterEffect: (effect, count) => {
      logged = count;
      executed = count === c.effects.length;
      const killer = c.effects.includes('once') ? effect === 'once' : true;
      if (kill !== 'during' || !killer) return undefined;
      // The tools of the batch run at once: the killer dies once every one has logged.
      return new Promise<void>(() => {
        const wait = (): void => {
          if (logged === c.effects.length) die();
          else setImmediate(wait);
        };
        wait();
      });
    },
  });
  const session = workflow.session(c.session);
  const pending = (await session.info()).pendingRequest;
  const result =
    task === 'start'
      ? await session.run('Go')
      : await session.run((pending?.calls ?? []).map((call) => approve(call.id)));
  process.stdout.write(`${JSON.stringify({ status: result.status })}\n`);
  await store.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : error}\n`);
    process.exit(1);
  },
);
