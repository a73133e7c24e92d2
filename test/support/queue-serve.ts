/**
 * A server process for the worker tests: `node --import tsx test/support/queue-serve.ts <pg|redis>
 * <store name> <workflow name>` serves the queue desk with a dispatcher on 127.0.0.1 (token
 * "workers-token") and prints `serving <url>`; SIGTERM closes it.
 */
import { serve } from '../../src/index.js';
import { listenOnNode } from '../../src/serve/node-listen.js';
import { dispatcherOf, type Engine, queueDesk, storeOf } from './queue-desk.js';

const [engineArg, name, workflowName, busyArg] = process.argv.slice(2);
if (
  (engineArg !== 'pg' && engineArg !== 'redis') ||
  name === undefined ||
  workflowName === undefined
) {
  throw new Error('usage: queue-serve.ts <pg|redis> <store name> <workflow name> [busy]');
}
const engine: Engine = engineArg;
const store = storeOf(engine, name);
const dispatcher = dispatcherOf(engine, `baton.${workflowName}`);
const busy = busyArg === 'reject' || busyArg === 'interrupt' ? busyArg : 'enqueue';
const handler = serve(queueDesk(store, workflowName), { token: 'workers-token', dispatcher, busy });
const listening = await listenOnNode(handler, 0, '127.0.0.1');
process.stdout.write(`serving ${listening.url}\n`);
process.once('SIGTERM', () => {
  void (async () => {
    await listening.close();
    await dispatcher.close();
    await store.close();
    process.exit(0);
  })();
});
