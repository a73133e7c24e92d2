/**
 * The process of the approval crash test (test/integration/approval-crash.test.ts):
 * `node --import tsx test/support/approval-crash-worker.ts <directory> <step>` works on session
 * `refund` of a `FileCheckpointStore` at `<directory>`:
 *
 * - `pause`: asks for the refund; the turn pauses for approval;
 * - `approve`: approves it; the refund tool appends its `ctx.callId` to `<directory>/ledger.txt`
 *   and then the process SIGKILLs itself, after the committed decision and before the tool's
 *   result is committed;
 * - `resume`: `run()` with no task finishes the interrupted turn.
 *
 * It prints the run's status and the session's thread as JSON on stdout.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

import { z } from 'zod';

import {
  Agent,
  approve,
  FileCheckpointStore,
  HandoffBuilder,
  ScriptedChatClient,
  tool,
} from '../../src/index.js';

async function main(): Promise<void> {
  const [directory, step] = process.argv.slice(2);
  if (directory === undefined || step === undefined) {
    throw new Error('usage: approval-crash-worker.ts <directory> pause|approve|resume');
  }
  const ledger = join(directory, 'ledger.txt');
  const refund = tool({
    name: 'refund',
    parameters: z.object({ invoiceId: z.string() }),
    needsApproval: true,
    // Runs again after a crash (API.md §17): a "once" refund would be in doubt instead.
    effect: 'idempotent',
    execute: ({ invoiceId }, ctx) => {
      appendFileSync(ledger, `${ctx.callId}\n`);
      if (step === 'approve') process.kill(process.pid, 'SIGKILL');
      return `Refunded ${invoiceId}.`;
    },
  });
  const client = new ScriptedChatClient((request) => {
    const last = request.messages.at(-1);
    return last?.role === 'tool'
      ? { content: `Done: ${last.content}` }
      : { toolCalls: [{ id: 'call_refund_1', name: 'refund', arguments: '{"invoiceId":"42"}' }] };
  });
  const billing = new Agent({ name: 'billing', client, tools: [refund], maxToolIterations: 2 });
  const workflow = new HandoffBuilder({ name: 'crash-refund', participants: [billing] })
    .coordinator(billing)
    .withCheckpointing(new FileCheckpointStore(directory))
    .build();
  const session = workflow.session('refund');
  const result =
    step === 'pause'
      ? await session.run('Refund invoice 42')
      : step === 'approve'
        ? await session.run(approve('call_refund_1'))
        : await session.run();
  process.stdout.write(
    `${JSON.stringify({ status: result.status, thread: await session.messages() })}\n`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : error}\n`);
    process.exit(1);
  },
);
