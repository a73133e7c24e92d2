/**
 * The process of the graph crash test (test/integration/graph-crash.test.ts):
 * `node --import tsx test/support/graph-crash-worker.ts <directory> crash|resume` works on session
 * `fan` of a `FileCheckpointStore` at `<directory>`, in the graph intake -> [left, right] -> join.
 *
 * - `crash`: runs the task; once both `left` and `right` have started (two branches in flight),
 *   the process SIGKILLs itself before either answer is committed;
 * - `resume`: `run()` with no task finishes the graph.
 *
 * Each node appends `<name>` to `<directory>/calls.txt` when called. Prints the run's status and
 * the thread as JSON on stdout.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  type ChatAgent,
  FileCheckpointStore,
  GraphBuilder,
  messageToText,
  textMessage,
} from '../../src/index.js';

async function main(): Promise<void> {
  const [directory, mode] = process.argv.slice(2);
  if (directory === undefined || (mode !== 'crash' && mode !== 'resume')) {
    throw new Error('usage: graph-crash-worker.ts <directory> crash|resume');
  }
  const calls = join(directory, 'calls.txt');
  let inFlight = 0;
  let release!: () => void;
  const never = new Promise<void>((resolve) => (release = resolve));
  const node = (name: string, branch = false): ChatAgent => ({
    name,
    description: name,
    respond: async (ctx) => {
      appendFileSync(calls, `${name}\n`);
      if (branch && mode === 'crash') {
        inFlight++;
        if (inFlight === 2) process.kill(process.pid, 'SIGKILL');
        await never;
      }
      const seen = ctx.newMessages.map((m) => messageToText(m)).join(' + ');
      return { chatMessage: textMessage({ source: name, content: `${name} after ${seen}` }) };
    },
  });
  void release;
  const flow = new GraphBuilder({ name: 'crash-fan' })
    .addNode(node('intake'))
    .addNode(node('left', true))
    .addNode(node('right', true))
    .addNode(node('join'))
    .addEdge('intake', ['left', 'right'])
    .addEdge(['left', 'right'], 'join')
    .withCheckpointing(new FileCheckpointStore(directory))
    .build();
  const session = flow.session('fan');
  const result = mode === 'crash' ? await session.run('go') : await session.run();
  process.stdout.write(
    `${JSON.stringify({ status: result.status, stopReason: result.stopReason, thread: await session.messages() })}\n`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : error}\n`);
    process.exit(1);
  },
);
