import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  Agent,
  approve,
  type FunctionCall,
  HandoffBuilder,
  type LLMMessage,
  reject,
  ScriptedChatClient,
  type ScriptedCall,
  type Task,
} from '../../src/index.js';
import { chatRequestProblems } from '../support/wire-rules.js';
import { deskTools } from './approvals-helpers.js';

/** A request as `OpenAIChatClient` sends it (the same mapping as its `toWire`). */
function wireBody(call: ScriptedCall): Record<string, unknown> {
  const messages = call.messages.map((m: LLMMessage) => {
    switch (m.role) {
      case 'system':
        return { role: 'system', content: m.content };
      case 'user':
        return { role: 'user', content: m.content, ...(m.name ? { name: m.name } : {}) };
      case 'tool':
        return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
      case 'assistant': {
        const name = m.name ? { name: m.name } : {};
        const calls = m.toolCalls ?? [];
        if (calls.length === 0) return { role: 'assistant', content: m.content ?? '', ...name };
        return {
          role: 'assistant',
          content: m.content,
          ...name,
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: c.arguments },
          })),
        };
      }
    }
  });
  return {
    model: 'test-model',
    messages,
    ...(call.tools === undefined
      ? {}
      : {
          tools: call.tools.map((t) => ({
            type: 'function',
            function: { name: t.name, description: t.description, parameters: t.parameters },
          })),
        }),
  };
}

type Kind = 'lookup' | 'refund' | 'handoff_to_tech';
type Decision = 'approve' | 'reject' | 'reply';

const script = fc.record({
  calls: fc.array(fc.constantFrom<Kind>('lookup', 'refund', 'handoff_to_tech'), {
    minLength: 1,
    maxLength: 5,
  }),
  decisions: fc.array(fc.constantFrom<Decision>('approve', 'reject', 'reply'), {
    minLength: 5,
    maxLength: 5,
  }),
  oneByOne: fc.boolean(),
  maxToolIterations: fc.integer({ min: 1, max: 3 }),
});

describe('approvals: every request to the model is wire-valid', () => {
  it('across random answers mixing ordinary calls, approval calls and handoffs', async () => {
    await fc.assert(
      fc.asyncProperty(script, async ({ calls, decisions, oneByOne, maxToolIterations }) => {
        const tools = deskTools();
        const first: FunctionCall[] = calls.map((name, i) => ({
          id: `k${i}`,
          name,
          arguments: name === 'handoff_to_tech' ? '{}' : `{"invoiceId":"${i}"}`,
        }));
        const billingClient = new ScriptedChatClient((_request, index) =>
          index === 0 ? { content: null, toolCalls: first } : { content: `billing ${index}` },
        );
        const techClient = new ScriptedChatClient((_request, index) => ({
          content: `tech ${index}`,
        }));
        const billing = new Agent({
          name: 'billing',
          client: billingClient,
          tools: [tools.lookup, tools.refund],
          maxToolIterations,
        });
        const tech = new Agent({ name: 'tech', client: techClient });
        const workflow = new HandoffBuilder({ participants: [billing, tech] })
          .coordinator(billing)
          .build();

        let result = await workflow.run('please refund');
        let round = 0;
        while (result.pendingRequest?.kind === 'approval') {
          const pending = result.pendingRequest.calls ?? [];
          const decide = (c: FunctionCall, d: Decision): Task =>
            d === 'approve' ? approve(c.id) : d === 'reject' ? reject(c.id, 'no') : 'stop that';
          const d = decisions[round % decisions.length] as Decision;
          const task: Task =
            d === 'reply'
              ? 'stop that'
              : oneByOne
                ? decide(pending[0] as FunctionCall, d)
                : pending.map((c) => (d === 'approve' ? approve(c.id) : reject(c.id)));
          result = await workflow.run(task);
          round++;
          expect(round).toBeLessThanOrEqual(6);
        }

        for (const call of [...billingClient.calls, ...techClient.calls]) {
          expect(chatRequestProblems(wireBody(call))).toEqual([]);
        }
        // Every call of the answer got exactly one result in the thread.
        const thread = await workflow.session('default').messages();
        const results = thread.flatMap((m) =>
          m.type === 'ToolCallExecutionEvent' ? m.content.map((r) => r.callId) : [],
        );
        expect([...results].sort()).toEqual(first.map((c) => c.id).sort());
        // Approved refunds ran exactly once; nothing else ran twice.
        expect(new Set(tools.runs).size).toBe(tools.runs.length);
      }),
      { numRuns: 60 },
    );
  });
});
