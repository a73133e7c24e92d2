import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { LLMMessage } from './llm-message.js';
import type { AgentMessage, FunctionCall } from './message.js';
import {
  handoffMessage,
  textMessage,
  toolCallExecutionEvent,
  toolCallRequestEvent,
} from './message-factories.js';
import { toModelMessages } from './model-view.js';

const call = (id: string, name: string, args = '{}'): FunctionCall => ({
  id,
  name,
  arguments: args,
});
const result = (callId: string, name: string, content: string) => ({
  callId,
  name,
  content,
  isError: false,
});

describe('toModelMessages() properties', () => {
  it('never sends a call without its result or a result without its call, and starts and ends with a user turn', () => {
    const ids = fc.constantFrom('a', 'b', 'c', 'd');
    const names = fc.constantFrom('f', 'handoff_to_x');
    const sources = fc.constantFrom('me', 'other', 'user');
    const event = fc.oneof(
      fc.record({ source: sources, content: fc.string() }).map((m) => textMessage(m)),
      fc
        .record({ source: sources, calls: fc.array(fc.record({ id: ids, name: names })) })
        .map(({ source, calls }) =>
          toolCallRequestEvent({ source, content: calls.map((c) => call(c.id, c.name)) }),
        ),
      fc
        .record({ source: sources, calls: fc.array(fc.record({ id: ids, name: names })) })
        .map(({ source, calls }) =>
          toolCallExecutionEvent({ source, content: calls.map((c) => result(c.id, c.name, 'r')) }),
        ),
    );
    const options = fc.record(
      {
        toolCallFilter: fc.constantFrom('handoff' as const, 'all' as const, 'none' as const),
        contextWindow: fc.integer({ min: 1, max: 6 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), options, (thread, opts) => {
        const view = toModelMessages(thread, 'me', opts);
        expect(wireProblems(view)).toEqual([]);
        // Every provider's rules: a user turn first, a user or tool turn last, no `name`.
        expect(view[0]?.role).toBe('user');
        expect(['user', 'tool']).toContain(view.at(-1)?.role);
        expect(view.filter((m) => 'name' in m)).toEqual([]);
      }),
    );
  });

  it('renders a growing thread step by step exactly as it renders the whole thread afresh', () => {
    const ids = fc.constantFrom('a', 'b', 'c', 'd', 'e');
    const sources = fc.constantFrom('me', 'other', 'user');
    const event = fc.oneof(
      fc
        .record({ source: sources, content: fc.constantFrom('x', 'Moved') })
        .map((m) => textMessage(m)),
      fc
        .record({
          source: sources,
          target: fc.constantFrom('me', 'other'),
          content: fc.constantFrom('Moved', 'y'),
        })
        .map((m) => handoffMessage(m)),
      fc
        .record({
          source: sources,
          calls: fc.array(fc.record({ id: ids, name: fc.constantFrom('f', 'handoff_to_x', 'go') })),
        })
        .map(({ source, calls }) =>
          toolCallRequestEvent({ source, content: calls.map((c) => call(c.id, c.name)) }),
        ),
      fc
        .record({
          source: sources,
          calls: fc.array(fc.record({ id: ids, content: fc.constantFrom('r', 'Moved') })),
        })
        .map(({ source, calls }) =>
          toolCallExecutionEvent({
            source,
            content: calls.map((c) => result(c.id, 'f', c.content)),
          }),
        ),
    );
    const filters = fc.constantFrom('handoff' as const, 'all' as const, 'none' as const);
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 14 }),
        fc.array(fc.nat(3), { maxLength: 5 }),
        filters,
        (events, cuts, toolCallFilter) => {
          // One thread object per step, as the engine makes them: the same messages, appended.
          let thread: AgentMessage[] = [];
          let at = 0;
          for (const size of [...cuts, events.length]) {
            thread = thread.concat(events.slice(at, at + size + 1));
            at = Math.min(events.length, at + size + 1);
            const stepwise = toModelMessages(thread, 'me', { toolCallFilter });
            const afresh = toModelMessages(structuredClone(thread), 'me', { toolCallFilter });
            expect(stepwise).toEqual(afresh);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

/** The pairing rules providers enforce, as a list of problems. */
function wireProblems(messages: readonly LLMMessage[]): string[] {
  const problems: string[] = [];
  let pending = new Set<string>();
  for (const m of messages) {
    if (m.role === 'tool') {
      if (!pending.delete(m.toolCallId)) problems.push(`orphan result ${m.toolCallId}`);
      continue;
    }
    if (pending.size > 0) problems.push(`unanswered ${[...pending].join(',')}`);
    pending = new Set(m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []);
  }
  if (pending.size > 0) problems.push(`unanswered ${[...pending].join(',')} at the end`);
  return problems;
}
