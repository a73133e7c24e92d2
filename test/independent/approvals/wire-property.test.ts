// Issue 15: across random responses mixing ordinary calls, approval calls and a handoff, with random
// decisions, every model request answers each tool call exactly once and nothing dangles.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  Agent,
  approve,
  HandoffBuilder,
  reject,
  ScriptedChatClient,
  scriptedText,
} from '../../../src/index.js';
import { calls, lookupTool, refundTool } from './helpers.js';

interface Msg {
  role: string;
  toolCalls?: { id: string }[];
  toolCallId?: string;
}

/** Problems with tool-call pairing in one request (empty when valid). */
function pairingProblems(messages: Msg[]): string[] {
  const problems: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'assistant' && m.toolCalls?.length) {
      const ids = m.toolCalls.map((c) => c.id);
      const replies: string[] = [];
      for (let j = i + 1; j < messages.length && messages[j]!.role === 'tool'; j++) {
        replies.push(messages[j]!.toolCallId ?? '');
      }
      if ([...replies].sort().join() !== [...ids].sort().join()) {
        problems.push(`calls ${ids.join()} answered by ${replies.join()}`);
      }
    }
    if (m.role === 'tool') {
      let k = i - 1;
      while (k >= 0 && messages[k]!.role === 'tool') k--;
      const owner = messages[k];
      if (!owner?.toolCalls?.some((c) => c.id === m.toolCallId))
        problems.push(`dangling result ${m.toolCallId}`);
    }
  }
  return problems;
}

const callArb = fc.constantFrom<'lookup' | 'refund'>('lookup', 'refund');

describe('approval scripts keep every request wire-valid', () => {
  it('random mixes of calls, handoffs and decisions', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(callArb, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.array(fc.nat(7), { minLength: 6, maxLength: 6 }),
        async (kinds, withHandoff, plan) => {
          const { refund, runs } = refundTool();
          const { lookup, runs: lookups } = lookupTool();
          const list: [string, string, unknown][] = kinds.map((k, i) => [
            `c${i}`,
            k,
            { invoiceId: `I${i}` },
          ]);
          if (withHandoff) list.push(['h', 'handoff_to_billing', {}]);
          const triageClient = new ScriptedChatClient([
            calls(...list),
            scriptedText('triage done'),
          ]);
          const billingClient = new ScriptedChatClient([scriptedText('billing here')]);
          const triage = new Agent({
            name: 'triage',
            client: triageClient,
            tools: [lookup, refund],
            maxToolIterations: 3,
          });
          const billing = new Agent({ name: 'billing', client: billingClient });
          const workflow = new HandoffBuilder({ participants: [triage, billing] })
            .coordinator(triage)
            .build();
          const session = workflow.session('p');

          let result = await session.run('go');
          const approved = new Set<string>();
          let step = 0;
          while (result.pendingRequest?.kind === 'approval') {
            const pending = result.pendingRequest.calls ?? [];
            expect(pending.length).toBeGreaterThan(0);
            const choice = step < plan.length ? plan[step]! : 1;
            step++;
            if (choice === 0) {
              result = await session.run('no thanks');
              continue;
            }
            const take = pending.slice(0, 1 + (choice % pending.length));
            const decisions = take.map((c, i) => {
              const yes = (choice >> i) % 2 === 1 || choice === 7;
              if (yes) approved.add(c.id);
              return yes ? approve(c.id) : reject(c.id, 'no');
            });
            result = await session.run(decisions);
          }
          expect(result.pendingRequest?.kind).toBe('input');
          expect(runs.map((r) => r.callId).sort()).toEqual([...approved].sort());
          expect(lookups).toHaveLength(kinds.filter((k) => k === 'lookup').length);
          expect(triageClient.calls).toHaveLength(withHandoff ? 1 : 2);
          expect(billingClient.calls).toHaveLength(withHandoff ? 1 : 0);
          for (const request of [...triageClient.calls, ...billingClient.calls]) {
            expect(pairingProblems(request.messages as Msg[])).toEqual([]);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
