import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  type AgentMessage,
  AndTerminationCondition,
  FunctionCallTermination,
  HandoffTermination,
  handoffMessage,
  MaxMessageTermination,
  messageToText,
  OrTerminationCondition,
  SourceMatchTermination,
  StopMessageTermination,
  stopMessage,
  type TerminationCondition,
  TextMentionTermination,
  TextMessageTermination,
  TokenUsageTermination,
  textMessage,
  thoughtEvent,
  toolCallExecutionEvent,
  toolCallRequestEvent,
} from '../../src/index.js';
import { type Delta, type StopSummary, stop, summary, viaJSON } from './termination-helpers.js';

const NUM_RUNS = 200;

// ---- random messages ------------------------------------------------------------------------

const SOURCES = ['user', 'writer', 'critic', 'editor'] as const;
const TARGETS = ['user', 'writer', 'critic', 'billing'] as const;
const WORDS = ['hello', 'DONE', 'APPROVE', 'ok', 'plan'] as const;
const FUNCTIONS = ['approve', 'lookup', 'reject'] as const;

const source = fc.constantFrom(...SOURCES);
const words = fc
  .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 })
  .map((w) => w.join(' '));
const usage = fc.option(fc.record({ promptTokens: fc.nat(40), completionTokens: fc.nat(40) }), {
  nil: undefined,
});

const message: fc.Arbitrary<AgentMessage> = fc
  .oneof(
    { weight: 4, arbitrary: fc.record({ source, content: words, usage }) },
    { weight: 1, arbitrary: fc.record({ stop: fc.constant(true), source, content: words }) },
    {
      weight: 2,
      arbitrary: fc.record({ source, target: fc.constantFrom(...TARGETS), content: words }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        source,
        calls: fc.array(fc.record({ name: fc.constantFrom(...FUNCTIONS), arg: words }), {
          minLength: 1,
          maxLength: 2,
        }),
        usage,
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        source,
        results: fc.array(fc.record({ name: fc.constantFrom(...FUNCTIONS), content: words }), {
          minLength: 1,
          maxLength: 2,
        }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ thought: fc.constant(true), source, content: words }) },
  )
  .map((r): AgentMessage => {
    if ('stop' in r) return stopMessage({ source: r.source, content: r.content });
    if ('thought' in r) return thoughtEvent({ source: r.source, content: r.content });
    if ('target' in r)
      return handoffMessage({ source: r.source, target: r.target, content: r.content });
    if ('calls' in r) {
      const content = r.calls.map((c, i) => ({
        id: `call_${i}`,
        name: c.name,
        arguments: JSON.stringify({ q: c.arg }),
      }));
      return r.usage === undefined
        ? toolCallRequestEvent({ source: r.source, content })
        : toolCallRequestEvent({ source: r.source, content, usage: r.usage });
    }
    if ('results' in r) {
      const content = r.results.map((x, i) => ({
        callId: `call_${i}`,
        name: x.name,
        content: x.content,
        isError: false,
      }));
      return toolCallExecutionEvent({ source: r.source, content });
    }
    return r.usage === undefined
      ? textMessage({ source: r.source, content: r.content })
      : textMessage({ source: r.source, content: r.content, usage: r.usage });
  });

const deltas = fc.array(fc.array(message, { maxLength: 4 }), { maxLength: 12 });

// ---- random conditions ----------------------------------------------------------------------

type Leaf =
  | { kind: 'max'; max: number; includeAgentEvent: boolean }
  | { kind: 'mention'; text: string; sources?: string[] }
  | {
      kind: 'tokens';
      total: number | undefined;
      prompt: number | undefined;
      completion: number | undefined;
    }
  | { kind: 'handoff'; target: string }
  | { kind: 'source'; sources: string[] }
  | { kind: 'stop' }
  | { kind: 'textMessage'; source?: string }
  | { kind: 'functionCall'; name: string };
type Spec = Leaf | { kind: 'or' | 'and'; children: Spec[] };

const someSources = fc.uniqueArray(source, { minLength: 1, maxLength: 2 });
const limit = fc.option(fc.integer({ min: 1, max: 120 }), { nil: undefined });

const leaf: fc.Arbitrary<Leaf> = fc.oneof(
  fc.record({
    kind: fc.constant('max' as const),
    max: fc.integer({ min: 1, max: 8 }),
    includeAgentEvent: fc.boolean(),
  }),
  fc.record(
    {
      kind: fc.constant('mention' as const),
      text: fc.constantFrom('DONE', 'APPROVE', 'approve', 'ok pl', 'lookup'),
      sources: someSources,
    },
    { requiredKeys: ['kind', 'text'] },
  ),
  fc
    .record({
      kind: fc.constant('tokens' as const),
      total: limit,
      prompt: limit,
      completion: limit,
    })
    .filter((t) => t.total !== undefined || t.prompt !== undefined || t.completion !== undefined),
  fc.record({ kind: fc.constant('handoff' as const), target: fc.constantFrom(...TARGETS) }),
  fc.record({ kind: fc.constant('source' as const), sources: someSources }),
  fc.constant({ kind: 'stop' as const }),
  fc.record({ kind: fc.constant('textMessage' as const), source }, { requiredKeys: ['kind'] }),
  fc.record({ kind: fc.constant('functionCall' as const), name: fc.constantFrom(...FUNCTIONS) }),
);

const spec: fc.Arbitrary<Spec> = fc.letrec<{ spec: Spec }>((tie) => ({
  spec: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({
      kind: fc.constantFrom('or' as const, 'and' as const),
      children: fc.array(tie('spec'), { minLength: 1, maxLength: 3 }),
    }),
  ),
})).spec;

function build(s: Spec): TerminationCondition {
  switch (s.kind) {
    case 'max':
      return new MaxMessageTermination(s.max, { includeAgentEvent: s.includeAgentEvent });
    case 'mention':
      return s.sources === undefined
        ? new TextMentionTermination(s.text)
        : new TextMentionTermination(s.text, { sources: s.sources });
    case 'tokens':
      return new TokenUsageTermination({
        ...(s.total === undefined ? {} : { maxTotalToken: s.total }),
        ...(s.prompt === undefined ? {} : { maxPromptToken: s.prompt }),
        ...(s.completion === undefined ? {} : { maxCompletionToken: s.completion }),
      });
    case 'handoff':
      return new HandoffTermination(s.target);
    case 'source':
      return new SourceMatchTermination(s.sources);
    case 'stop':
      return new StopMessageTermination();
    case 'textMessage':
      return s.source === undefined
        ? new TextMessageTermination()
        : new TextMessageTermination(s.source);
    case 'functionCall':
      return new FunctionCallTermination(s.name);
    case 'or':
      return new OrTerminationCondition(s.children.map(build));
    case 'and':
      return new AndTerminationCondition(s.children.map(build));
  }
}

// ---- a reference model written from API.md §2 -----------------------------------------------

interface Model {
  check(delta: Delta): StopSummary | null;
}

const isChat = (m: AgentMessage) =>
  [
    'TextMessage',
    'StopMessage',
    'HandoffMessage',
    'ToolCallSummaryMessage',
    'StructuredMessage',
  ].includes(m.type);

/** Fires the first time `decide` returns a summary; the caller never checks it after that. */
function leafModel(decide: (delta: Delta) => StopSummary | null): Model {
  return { check: decide };
}

function model(s: Spec): Model {
  switch (s.kind) {
    case 'max': {
      let count = 0;
      return leafModel((delta) => {
        count += delta.filter((m) => s.includeAgentEvent || isChat(m)).length;
        return count >= s.max
          ? stop(
              `Maximum number of messages ${s.max} reached, current message count: ${count}`,
              'MaxMessageTermination',
            )
          : null;
      });
    }
    case 'mention':
      return leafModel((delta) =>
        delta.some(
          (m) =>
            (s.sources === undefined || s.sources.includes(m.source)) &&
            messageToText(m).includes(s.text),
        )
          ? stop(`Text '${s.text}' mentioned`, 'TextMentionTermination')
          : null,
      );
    case 'tokens': {
      let prompt = 0;
      let completion = 0;
      return leafModel((delta) => {
        for (const m of delta) {
          prompt += m.usage?.promptTokens ?? 0;
          completion += m.usage?.completionTokens ?? 0;
        }
        const total = prompt + completion;
        const reached =
          (s.total !== undefined && total >= s.total) ||
          (s.prompt !== undefined && prompt >= s.prompt) ||
          (s.completion !== undefined && completion >= s.completion);
        return reached
          ? stop(
              `Token usage limit reached, total token count: ${total}, prompt token count: ${prompt}, completion token count: ${completion}.`,
              'TokenUsageTermination',
            )
          : null;
      });
    }
    case 'handoff':
      return leafModel((delta) => {
        const m = delta.find((x) => x.type === 'HandoffMessage' && x.target === s.target);
        return m
          ? stop(`Handoff to ${s.target} from ${m.source} detected.`, 'HandoffTermination')
          : null;
      });
    case 'source':
      return leafModel((delta) => {
        const m = delta.find((x) => s.sources.includes(x.source));
        return m ? stop(`'${m.source}' answered`, 'SourceMatchTermination') : null;
      });
    case 'stop':
      return leafModel((delta) =>
        delta.some((m) => m.type === 'StopMessage')
          ? stop('Stop message received', 'StopMessageTermination')
          : null,
      );
    case 'textMessage':
      return leafModel((delta) => {
        const m = delta.find(
          (x) => x.type === 'TextMessage' && (s.source === undefined || x.source === s.source),
        );
        return m
          ? stop(`Text message received from '${m.source}'`, 'TextMessageTermination')
          : null;
      });
    case 'functionCall':
      return leafModel((delta) =>
        delta.some(
          (m) => m.type === 'ToolCallExecutionEvent' && m.content.some((r) => r.name === s.name),
        )
          ? stop(`Function '${s.name}' was executed.`, 'FunctionCallTermination')
          : null,
      );
    case 'or': {
      const children = s.children.map(model);
      return {
        check(delta) {
          const fired = children.map((c) => c.check(delta)).filter((r) => r !== null);
          return fired.length === 0 ? null : joined(fired);
        },
      };
    }
    case 'and': {
      const children = s.children.map((c) => ({ model: model(c), fired: false }));
      const order: StopSummary[] = [];
      return {
        check(delta) {
          for (const child of children) {
            if (child.fired) continue;
            const r = child.model.check(delta);
            if (r !== null) {
              child.fired = true;
              order.push(r);
            }
          }
          return children.every((c) => c.fired) ? joined(order) : null;
        },
      };
    }
  }
}

function joined(parts: StopSummary[]): StopSummary {
  return stop(parts.map((p) => p.content).join(', '), parts.map((p) => p.source).join(', '));
}

// ---- running ---------------------------------------------------------------------------------

type Outcome = StopSummary | null | string;

/** Checks every delta; after the first firing, records what one more check does, then stops. */
async function trace(c: TerminationCondition, ds: readonly Delta[]): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (const [i, delta] of ds.entries()) {
    const r = summary(await c.check(delta));
    out.push(r);
    if (r !== null) {
      if (!c.terminated) throw new Error('A condition that fired reports terminated = false.');
      if (i + 1 < ds.length) {
        try {
          await c.check(ds[i + 1] ?? []);
          out.push(null);
        } catch (error) {
          out.push((error as Error).name === 'TerminatedError' ? 'TerminatedError' : String(error));
        }
      }
      break;
    }
    if (c.terminated) throw new Error('A condition that returned null reports terminated = true.');
  }
  return out;
}

function modelTrace(s: Spec, ds: readonly Delta[]): Outcome[] {
  const m = model(s);
  const out: Outcome[] = [];
  for (const [i, delta] of ds.entries()) {
    const r = m.check(delta);
    out.push(r);
    if (r !== null) {
      if (i + 1 < ds.length) out.push('TerminatedError');
      break;
    }
  }
  return out;
}

const options = { numRuns: NUM_RUNS };

describe('termination conditions (property-based)', () => {
  it('every built-in and combinator behaves as the reference model of API.md', async () => {
    await fc.assert(
      fc.asyncProperty(spec, deltas, async (s, ds) => {
        expect(await trace(build(s), ds)).toEqual(modelTrace(s, ds));
      }),
      options,
    );
  });

  it('a.or(b) fires on the first delta where an independent a or b fires, joined in child order', async () => {
    await fc.assert(
      fc.asyncProperty(spec, spec, deltas, async (sa, sb, ds) => {
        const a = build(sa);
        const b = build(sb);
        const either = build(sa).or(build(sb));
        for (const delta of ds) {
          const ra = summary(await a.check(delta));
          const rb = summary(await b.check(delta));
          const fired = [ra, rb].filter((r) => r !== null);
          const expected = fired.length === 0 ? null : joined(fired);
          expect(summary(await either.check(delta))).toEqual(expected);
          expect(either.terminated).toBe(expected !== null);
          if (expected !== null) break;
        }
      }),
      options,
    );
  });

  it('a.and(b) fires on the first delta by which independent a and b have both fired, in firing order', async () => {
    await fc.assert(
      fc.asyncProperty(spec, spec, deltas, async (sa, sb, ds) => {
        const a = build(sa);
        const b = build(sb);
        const both = build(sa).and(build(sb));
        const order: StopSummary[] = [];
        for (const delta of ds) {
          if (!a.terminated) {
            const r = summary(await a.check(delta));
            if (r !== null) order.push(r);
          }
          if (!b.terminated) {
            const r = summary(await b.check(delta));
            if (r !== null) order.push(r);
          }
          const expected = a.terminated && b.terminated ? joined(order) : null;
          expect(summary(await both.check(delta))).toEqual(expected);
          expect(both.terminated).toBe(expected !== null);
          if (expected !== null) break;
        }
      }),
      options,
    );
  });

  it('reset then replay gives identical results', async () => {
    await fc.assert(
      fc.asyncProperty(spec, spec, fc.boolean(), deltas, async (sa, sb, useOr, ds) => {
        const c = useOr ? build(sa).or(build(sb)) : build(sa).and(build(sb));
        const first = await trace(c, ds);
        c.reset();
        expect(c.terminated).toBe(false);
        expect(await trace(c, ds)).toEqual(first);
      }),
      options,
    );
  });

  it('a condition restored from saved state in the middle continues identically', async () => {
    await fc.assert(
      fc.asyncProperty(spec, deltas, fc.nat(), async (s, ds, cut) => {
        const at = ds.length === 0 ? 0 : cut % (ds.length + 1);
        const whole = await trace(build(s), ds);
        const head = await trace(build(s), ds.slice(0, at));
        if (head.some((o) => o !== null)) return; // fired before the cut: nothing to continue
        const original = build(s);
        for (const delta of ds.slice(0, at)) await original.check(delta);
        const copy = build(s);
        copy.loadState(viaJSON(original.saveState()));
        expect([...head, ...(await trace(copy, ds.slice(at)))]).toEqual(whole);
      }),
      options,
    );
  });
});
