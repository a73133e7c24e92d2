import { describe, expect, it } from 'vitest';

import { errorTypeOf, type FinishedSpan, onSpanEnd, type SpanSpec, Tracing } from './tracing.js';

const spec = (name: string, operation: SpanSpec['operation'], extra: Partial<SpanSpec> = {}) => ({
  name,
  operation,
  kind: 'internal' as const,
  attributes: { 'gen_ai.operation.name': operation, unset: undefined },
  ...extra,
});

describe('Tracing without OpenTelemetry', () => {
  it('only calls the work when nobody listens', async () => {
    const tracing = new Tracing(undefined, '1.0.0');
    const recording: boolean[] = [];
    const value = await tracing.span(spec('chat', 'chat'), async (span) => {
      recording.push(span.recording);
      span.set({ a: 1 });
      return 42;
    });
    expect(value).toBe(42);
    expect(recording).toEqual([false]);
  });

  it('gives local subscribers nested spans with their run and conversation', async () => {
    const tracing = new Tracing(undefined, '1.0.0');
    const seen: FinishedSpan[] = [];
    const stop = onSpanEnd((span) => seen.push(span));
    try {
      await tracing.span(
        spec('invoke_workflow w', 'invoke_workflow', { conversationId: 'c1' }),
        async (run) => {
          run.event('baton.termination', { 'baton.stop_reason': 'done', none: undefined });
          await tracing.span(spec('invoke_agent a', 'invoke_agent'), async () => {
            await tracing.span(spec('chat', 'chat', { kind: 'client' }), async (chat) => {
              chat.set({ 'gen_ai.usage.input_tokens': 3 });
            });
            await expect(
              tracing.span(spec('execute_tool t', 'execute_tool'), async () => {
                throw new RangeError('no');
              }),
            ).rejects.toThrow('no');
          });
        },
      );
    } finally {
      stop();
    }
    const [chat, tool, agent, run] = seen;
    expect(seen.map((s) => [s.name, s.parentId, s.runId, s.conversationId])).toEqual([
      ['chat', agent?.id, run?.id, 'c1'],
      ['execute_tool t', agent?.id, run?.id, 'c1'],
      ['invoke_agent a', run?.id, run?.id, 'c1'],
      ['invoke_workflow w', null, run?.id, 'c1'],
    ]);
    expect(chat?.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': 3,
    });
    expect(tool?.errorType).toBe('RangeError');
    expect(tool?.attributes['error.type']).toBe('RangeError');
    expect(run?.events).toEqual([
      { name: 'baton.termination', attributes: { 'baton.stop_reason': 'done' } },
    ]);
    expect(run?.durationMs).toBeGreaterThanOrEqual(agent?.durationMs ?? Infinity);
  });

  it('never lets a failing subscriber break the work', async () => {
    const tracing = new Tracing(undefined, '1.0.0');
    const stop = onSpanEnd(() => {
      throw new Error('subscriber bug');
    });
    try {
      await expect(tracing.span(spec('chat', 'chat'), async () => 'ok')).resolves.toBe('ok');
    } finally {
      stop();
    }
  });
});

describe('errorTypeOf()', () => {
  it('names an Error by its name and anything else _OTHER', () => {
    expect(errorTypeOf(new TypeError('x'))).toBe('TypeError');
    expect(errorTypeOf('a string')).toBe('_OTHER');
  });

  it('gives _OTHER for a thrown Proxy whose traps throw, instead of throwing', () => {
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('proxy getPrototypeOf trap');
        },
      },
    );
    expect(errorTypeOf(hostile)).toBe('_OTHER');
  });
});
