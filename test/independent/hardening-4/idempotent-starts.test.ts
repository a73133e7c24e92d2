// Issue 43, item 7: an "idempotent" tool is promised to run again after a crash with the same
// `ctx.callId`. Nothing was committed before it ran, so after a cancel (or a SIGKILL and a resume
// elsewhere) the model was asked again and minted a new call id: a payment API keyed by it paid
// twice. The calls of a batch with an idempotent call are committed before it runs, as a "once"
// batch's are, and the resumed turn runs the same call again.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  tool,
} from '../../../src/index.js';

/** A desk whose `pay` tool notes each call id; the first call hangs until the run is aborted. */
/** `minted` counts the call ids the model made, across workflow objects (as a model would). */
function desk(
  store: MemoryCheckpointStore | undefined,
  seen: string[],
  hang: { first: boolean; minted: number },
) {
  let started = () => {};
  const payStarted = new Promise<void>((resolve) => (started = resolve));
  const pay = tool({
    name: 'pay',
    description: 'Pays the invoice.',
    parameters: z.object({ invoice: z.string() }),
    effect: 'idempotent',
    execute: async ({ invoice }, ctx) => {
      seen.push(ctx.callId);
      if (hang.first) {
        hang.first = false;
        started();
        await new Promise((_, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
        );
      }
      return `paid ${invoice}`;
    },
  });
  const clerk = new Agent({
    name: 'clerk',
    tools: [pay],
    client: new ScriptedChatClient((request) =>
      request.messages.at(-1)?.role === 'tool'
        ? scriptedText(`done: ${String(request.messages.at(-1)?.content)}`)
        : scriptedToolCall('pay', { invoice: 'INV-7' }, `call-${++hang.minted}`),
    ),
  });
  let builder = new HandoffBuilder({ name: 'payments', participants: [clerk] }).coordinator(clerk);
  if (store !== undefined) builder = builder.withCheckpointing(store);
  return { workflow: builder.build(), payStarted };
}

describe('an idempotent call cut off by a cancel', () => {
  for (const withStore of [false, true]) {
    it(`runs again with the same ctx.callId${withStore ? ' (a fresh workflow over the store)' : ''}`, async () => {
      const store = withStore ? new MemoryCheckpointStore() : undefined;
      const seen: string[] = [];
      const hang = { first: true, minted: 0 };
      const first = desk(store, seen, hang);
      const controller = new AbortController();
      const running = first.workflow.session('s').run('pay INV-7', { signal: controller.signal });
      await first.payStarted;
      controller.abort();
      const cancelled = await running;
      expect(cancelled.status).toBe('cancelled');

      const again = withStore ? desk(store, seen, hang).workflow : first.workflow;
      const resumed = await again.session('s').run();
      expect(seen).toEqual(['call-1', 'call-1']);
      expect(resumed.status).toBe('awaiting_input');
      expect(resumed.pendingRequest?.prompt).toBe('paid INV-7');
      expect(hang.minted).toBe(1);
      const steps = await (withStore ? again.session('s').checkpoints() : Promise.resolve([]));
      if (withStore) expect(steps.map((s) => s.event)).toContain('tool_calls_started:clerk');
    });
  }
});
