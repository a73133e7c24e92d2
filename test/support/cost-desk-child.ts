// A child process of test/scenarios/cost-budget.test.ts: runs one message through the cost desk
// kept in a file store, then prints the run's status, stop reason and the calls it made.
import { FileCheckpointStore } from '../../src/checkpoint/file-checkpoint-store.js';
import { costDesk } from './cost-desk.js';

const [dir, session, text, maxUsd] = process.argv.slice(2);
if (dir === undefined || session === undefined || text === undefined || maxUsd === undefined) {
  throw new Error('usage: cost-desk-child <store dir> <session> <text> <maxUsd>');
}
const { workflow, client } = costDesk(new FileCheckpointStore(dir), Number(maxUsd), 5);
const result = await workflow.session(session).run(text);
process.stdout.write(
  JSON.stringify({
    status: result.status,
    stopReason: result.stopReason,
    calls: client.calls.length,
  }),
);
