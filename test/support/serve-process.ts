// One `serve` process of test/serve/serve-two-processes.test.ts: the serve desk on a shared
// PostgresCheckpointStore, listening on 127.0.0.1 (a free port).
//
// Run as: node --import <tsx> test/support/serve-process.ts '{"connectionString":…,"table":…}'
// Prints `url <base url>` once listening. Lines on stdin: `open` lets the model calls waiting at
// the desk's gate through, `close` makes later ones wait again, `exit` closes and exits.
import { createInterface } from 'node:readline';

import { PostgresCheckpointStore, serve } from '../../src/index.js';
import { listenOnNode } from '../../src/serve/node-listen.js';
import { Gate, serveDesk } from './serve-desk.js';

const config = JSON.parse(process.argv[2] ?? '{}') as {
  connectionString: string;
  table: string;
  token: string;
};
const store = new PostgresCheckpointStore({
  connectionString: config.connectionString,
  table: config.table,
});
const gate = new Gate();
const desk = serveDesk({ store, gate });
const listening = await listenOnNode(serve(desk.workflow, { token: config.token }), 0, '127.0.0.1');
console.log(`url ${listening.url}`);
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'open') gate.open();
  if (line === 'close') gate.close();
  if (line === 'exit') {
    void listening
      .close()
      .then(() => store.close())
      .then(() => process.exit(0));
  }
});
