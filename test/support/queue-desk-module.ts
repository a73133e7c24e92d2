/**
 * The queue desk as a workflow module for `baton worker` (test/integration/workers-processes.test.ts):
 * its store and name come from QD_ENGINE (`pg` or `redis`), QD_STORE and QD_NAME, so its queue is
 * `baton.<QD_NAME>`; QD_CLERK renames its agent (a build that cannot take over the sessions).
 */
import { queueDesk, storeOf } from './queue-desk.js';

const engine = process.env.QD_ENGINE === 'redis' ? 'redis' : 'pg';
export const workflow = queueDesk(
  storeOf(engine, process.env.QD_STORE ?? 'baton_qd'),
  process.env.QD_NAME ?? 'queue-desk',
  process.env.QD_CLERK ?? 'clerk',
);
