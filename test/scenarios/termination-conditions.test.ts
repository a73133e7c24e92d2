import { describe, expect, it } from 'vitest';

import {
  type AgentMessage,
  AgentMessageSchema,
  ConfigError,
  ExternalTermination,
  FunctionalTermination,
  FunctionCallTermination,
  HandoffTermination,
  MaxMessageTermination,
  messageToText,
  SourceMatchTermination,
  StopMessageTermination,
  streamingChunkEvent,
  type TerminationCondition,
  TextMentionTermination,
  TextMessageTermination,
  TimeoutTermination,
  TokenUsageTermination,
  thoughtEvent,
  userInputRequestedEvent,
} from '../../src/index.js';
import {
  call,
  type Delta,
  executionEvent,
  expectTerminatedError,
  handoff,
  requestEvent,
  result,
  stop,
  stopMsg,
  summary,
  text,
  thrownBy,
  viaJSON,
} from './termination-helpers.js';

function expectConfigError(run: () => unknown, mentions?: string): void {
  const error = thrownBy(run);
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as Error).name).toBe('ConfigError');
  if (mentions !== undefined) expect((error as Error).message).toContain(mentions);
}

describe('MaxMessageTermination', () => {
  it('stops when the count reaches the limit and says why', async () => {
    const c = new MaxMessageTermination(3);
    expect(summary(await c.check([text('a'), text('b')]))).toBeNull();
    expect(c.terminated).toBe(false);
    expect(summary(await c.check([text('c')]))).toEqual(
      stop(
        'Maximum number of messages 3 reached, current message count: 3',
        'MaxMessageTermination',
      ),
    );
    expect(c.terminated).toBe(true);
  });

  it('counts deltas cumulatively, one call at a time', async () => {
    const c = new MaxMessageTermination(4);
    const seen: (string | null)[] = [];
    for (const delta of [[text('a')], [], [text('b')], [text('c')], [text('d')]]) {
      seen.push((await c.check(delta))?.content ?? null);
    }
    expect(seen).toEqual([
      null,
      null,
      null,
      null,
      'Maximum number of messages 4 reached, current message count: 4',
    ]);
  });

  it('counts the whole delta, so the reported count can exceed the limit', async () => {
    const c = new MaxMessageTermination(2);
    expect((await c.check([text('a'), text('b'), text('c')]))?.content).toBe(
      'Maximum number of messages 2 reached, current message count: 3',
    );
  });

  it('counts only chat messages by default', async () => {
    const c = new MaxMessageTermination(2);
    const events: AgentMessage[] = [
      thoughtEvent({ source: 'w', content: 't' }),
      requestEvent('w', [call('f')]),
      executionEvent('w', [result('f')]),
      streamingChunkEvent({ source: 'w', content: 'x' }),
      userInputRequestedEvent({ source: 'w', requestId: 'r', content: 'q' }),
    ];
    expect(await c.check(events)).toBeNull();
    expect(await c.check([handoff('w', 'x')])).toBeNull();
    expect((await c.check([stopMsg('s')]))?.content).toBe(
      'Maximum number of messages 2 reached, current message count: 2',
    );
  });

  it('counts agent events too with includeAgentEvent', async () => {
    const c = new MaxMessageTermination(3, { includeAgentEvent: true });
    expect(await c.check([thoughtEvent({ source: 'w', content: 't' }), text('a')])).toBeNull();
    expect(summary(await c.check([requestEvent('w', [call('f')])]))).toEqual(
      stop(
        'Maximum number of messages 3 reached, current message count: 3',
        'MaxMessageTermination',
      ),
    );
  });

  it('starts counting from zero after reset', async () => {
    const c = new MaxMessageTermination(2);
    await c.check([text('a'), text('b')]);
    c.reset();
    expect(c.terminated).toBe(false);
    expect(await c.check([text('c')])).toBeNull();
    expect((await c.check([text('d')]))?.content).toBe(
      'Maximum number of messages 2 reached, current message count: 2',
    );
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects maxMessages %s', (n) => {
    expectConfigError(() => new MaxMessageTermination(n), String(n));
  });
});

describe('TextMentionTermination', () => {
  it('stops when a message contains the text and says why', async () => {
    const c = new TextMentionTermination('APPROVE');
    expect(await c.check([text('looks fine')])).toBeNull();
    expect(summary(await c.check([text('first'), text('I APPROVE this draft', 'critic')]))).toEqual(
      stop("Text 'APPROVE' mentioned", 'TextMentionTermination'),
    );
    expect(c.terminated).toBe(true);
  });

  it('matches case-sensitively', async () => {
    const c = new TextMentionTermination('APPROVE');
    expect(await c.check([text('approve'), text('Approve'), stopMsg('approved')])).toBeNull();
    expect(c.terminated).toBe(false);
  });

  it('sees any message type through messageToText', async () => {
    const delta = [stopMsg('we are DONE'), handoff('a', 'b', 'DONE here')];
    for (const m of delta) {
      const c = new TextMentionTermination('DONE');
      expect((await c.check([m]))?.content).toBe("Text 'DONE' mentioned");
    }
  });

  it('sees tool call names and arguments', async () => {
    const byName = new TextMentionTermination('approve');
    expect((await byName.check([requestEvent('critic', [call('approve')])]))?.content).toBe(
      "Text 'approve' mentioned",
    );
    const byArgs = new TextMentionTermination('INV-42');
    expect(
      (await byArgs.check([requestEvent('critic', [call('lookup', '{"id":"INV-42"}')])]))?.content,
    ).toBe("Text 'INV-42' mentioned");
  });

  it('sees tool result contents', async () => {
    const c = new TextMentionTermination('TERMINATE');
    const m = executionEvent('critic', [result('lookup', 'ok'), result('x', 'please TERMINATE')]);
    expect(messageToText(m)).toContain('TERMINATE');
    expect((await c.check([m]))?.content).toBe("Text 'TERMINATE' mentioned");
  });

  it('listens only to the given sources', async () => {
    const c = new TextMentionTermination('DONE', { sources: ['critic', 'editor'] });
    expect(await c.check([text('DONE', 'writer'), text('DONE', 'user')])).toBeNull();
    expect(await c.check([text('not yet', 'critic')])).toBeNull();
    expect(summary(await c.check([text('DONE', 'editor')]))).toEqual(
      stop("Text 'DONE' mentioned", 'TextMentionTermination'),
    );
  });

  it('fires again after reset', async () => {
    const c = new TextMentionTermination('DONE');
    await c.check([text('DONE')]);
    c.reset();
    expect(c.terminated).toBe(false);
    expect(await c.check([text('nothing')])).toBeNull();
    expect((await c.check([text('DONE')]))?.content).toBe("Text 'DONE' mentioned");
  });
});

describe('TokenUsageTermination', () => {
  it('stops when the total limit is reached and reports all three counts', async () => {
    const c = new TokenUsageTermination({ maxTotalToken: 20 });
    expect(await c.check([text('a', 'w', [5, 5])])).toBeNull();
    expect(c.terminated).toBe(false);
    expect(summary(await c.check([text('b', 'w', [6, 4])]))).toEqual(
      stop(
        'Token usage limit reached, total token count: 20, prompt token count: 11, completion token count: 9.',
        'TokenUsageTermination',
      ),
    );
    expect(c.terminated).toBe(true);
  });

  it('stops on the prompt limit alone', async () => {
    const c = new TokenUsageTermination({ maxPromptToken: 10 });
    expect(await c.check([text('a', 'w', [9, 100])])).toBeNull();
    expect((await c.check([text('b', 'w', [1, 0])]))?.content).toBe(
      'Token usage limit reached, total token count: 110, prompt token count: 10, completion token count: 100.',
    );
  });

  it('stops on the completion limit alone', async () => {
    const c = new TokenUsageTermination({ maxCompletionToken: 10 });
    expect(await c.check([text('a', 'w', [100, 9])])).toBeNull();
    expect((await c.check([text('b', 'w', [0, 3])]))?.content).toBe(
      'Token usage limit reached, total token count: 112, prompt token count: 100, completion token count: 12.',
    );
  });

  it('stops on whichever configured limit is reached first', async () => {
    const c = new TokenUsageTermination({
      maxTotalToken: 1000,
      maxPromptToken: 500,
      maxCompletionToken: 50,
    });
    expect(await c.check([text('a', 'w', [400, 40])])).toBeNull();
    expect((await c.check([text('b', 'w', [10, 10])]))?.content).toBe(
      'Token usage limit reached, total token count: 460, prompt token count: 410, completion token count: 50.',
    );
  });

  it('adds up usage on agent events and ignores messages without usage', async () => {
    const c = new TokenUsageTermination({ maxTotalToken: 30 });
    expect(
      await c.check([requestEvent('w', [call('f')], [10, 5]), executionEvent('w', [result('f')])]),
    ).toBeNull();
    expect(await c.check([text('no usage'), text('x', 'w', [7, 7])])).toBeNull();
    expect((await c.check([text('y', 'w', [1, 0])]))?.content).toBe(
      'Token usage limit reached, total token count: 30, prompt token count: 18, completion token count: 12.',
    );
  });

  it('starts from zero after reset', async () => {
    const c = new TokenUsageTermination({ maxTotalToken: 10 });
    await c.check([text('a', 'w', [10, 0])]);
    c.reset();
    expect(await c.check([text('b', 'w', [5, 4])])).toBeNull();
    expect((await c.check([text('c', 'w', [0, 1])]))?.content).toBe(
      'Token usage limit reached, total token count: 10, prompt token count: 5, completion token count: 5.',
    );
  });

  it('rejects options without any limit', () => {
    expectConfigError(() => new TokenUsageTermination({}));
  });

  it.each([{ maxTotalToken: -1 }, { maxPromptToken: Number.NaN }, { maxCompletionToken: 2.5 }])(
    'rejects the bad limit %o',
    (options) => {
      expectConfigError(() => new TokenUsageTermination(options));
    },
  );
});

describe('TimeoutTermination', () => {
  it('starts the clock at the first check and stops once the time has passed', async () => {
    let now = 1_000;
    const c = new TimeoutTermination(30, { clock: () => now });
    now = 500_000; // construction time does not count
    expect(await c.check([])).toBeNull();
    now += 29_999;
    expect(await c.check([text('a')])).toBeNull();
    expect(c.terminated).toBe(false);
    now += 1;
    expect(summary(await c.check([]))).toEqual(
      stop('Timeout of 30 seconds reached', 'TimeoutTermination'),
    );
    expect(c.terminated).toBe(true);
  });

  it('stops on a check well past the deadline', async () => {
    let now = 0;
    const c = new TimeoutTermination(0.5, { clock: () => now });
    expect(await c.check([])).toBeNull();
    now = 10_000;
    expect((await c.check([text('late')]))?.content).toBe('Timeout of 0.5 seconds reached');
  });

  it('restarts the clock at the first check after reset', async () => {
    let now = 0;
    const c = new TimeoutTermination(10, { clock: () => now });
    await c.check([]);
    now = 10_000;
    expect((await c.check([]))?.content).toBe('Timeout of 10 seconds reached');
    c.reset();
    expect(c.terminated).toBe(false);
    now = 50_000;
    expect(await c.check([])).toBeNull();
    now = 59_999;
    expect(await c.check([])).toBeNull();
    now = 60_000;
    expect((await c.check([]))?.content).toBe('Timeout of 10 seconds reached');
  });

  it.each([-1, Number.NaN])('rejects timeoutSeconds %s', (n) => {
    expectConfigError(() => new TimeoutTermination(n), String(n));
  });
});

describe('HandoffTermination', () => {
  it('stops on a handoff to the target and names who handed off', async () => {
    const c = new HandoffTermination('user');
    expect(await c.check([handoff('triage', 'billing'), text('user')])).toBeNull();
    expect(summary(await c.check([text('hi'), handoff('billing', 'user')]))).toEqual(
      stop('Handoff to user from billing detected.', 'HandoffTermination'),
    );
  });

  it('ignores messages that only mention the target', async () => {
    const c = new HandoffTermination('user');
    expect(
      await c.check([
        text('handing off to user', 'user'),
        stopMsg('user'),
        thoughtEvent({ source: 'user', content: 'user' }),
      ]),
    ).toBeNull();
    expect(c.terminated).toBe(false);
  });
});

describe('SourceMatchTermination', () => {
  it('stops when a listed source answers and names it', async () => {
    const c = new SourceMatchTermination(['critic', 'editor']);
    expect(await c.check([text('draft', 'writer'), text('task', 'user')])).toBeNull();
    expect(summary(await c.check([text('draft', 'writer'), text('fine', 'editor')]))).toEqual(
      stop("'editor' answered", 'SourceMatchTermination'),
    );
  });

  it('names the first listed source of the delta', async () => {
    const c = new SourceMatchTermination(['critic', 'editor']);
    expect((await c.check([text('a', 'critic'), text('b', 'editor')]))?.content).toBe(
      "'critic' answered",
    );
  });

  it('matches any message type from a listed source', async () => {
    const c = new SourceMatchTermination(['critic']);
    expect((await c.check([requestEvent('critic', [call('f')])]))?.content).toBe(
      "'critic' answered",
    );
  });
});

describe('ExternalTermination', () => {
  it('stops at the first check after set() and says why', async () => {
    const c = new ExternalTermination();
    expect(await c.check([text('a')])).toBeNull();
    c.set();
    expect(c.terminated).toBe(false);
    expect(summary(await c.check([]))).toEqual(
      stop('External termination requested', 'ExternalTermination'),
    );
    expect(c.terminated).toBe(true);
  });

  it('accepts set() more than once', async () => {
    const c = new ExternalTermination();
    c.set();
    c.set();
    expect((await c.check([text('a')]))?.content).toBe('External termination requested');
  });

  it('forgets a pending set() on reset', async () => {
    const c = new ExternalTermination();
    c.set();
    c.reset();
    expect(await c.check([text('a')])).toBeNull();
    expect(c.terminated).toBe(false);
    c.set();
    expect((await c.check([]))?.content).toBe('External termination requested');
  });

  it('never fires without set()', async () => {
    const c = new ExternalTermination();
    for (let i = 0; i < 5; i++) expect(await c.check([text(`m${i}`), stopMsg('stop')])).toBeNull();
  });
});

describe('StopMessageTermination', () => {
  it('stops on a StopMessage and says why', async () => {
    const c = new StopMessageTermination();
    expect(await c.check([text('stop'), handoff('a', 'b')])).toBeNull();
    expect(summary(await c.check([text('x'), stopMsg('bye', 'critic')]))).toEqual(
      stop('Stop message received', 'StopMessageTermination'),
    );
  });
});

describe('TextMessageTermination', () => {
  it('stops on any TextMessage when no source is given, naming its source', async () => {
    const c = new TextMessageTermination();
    expect(
      await c.check([stopMsg('s'), handoff('a', 'b'), thoughtEvent({ source: 'a', content: 't' })]),
    ).toBeNull();
    expect(summary(await c.check([text('hello', 'critic'), text('x', 'writer')]))).toEqual(
      stop("Text message received from 'critic'", 'TextMessageTermination'),
    );
  });

  it('listens only to the given source', async () => {
    const c = new TextMessageTermination('critic');
    expect(await c.check([text('a', 'writer'), stopMsg('b', 'critic')])).toBeNull();
    expect(summary(await c.check([text('a', 'writer'), text('ok', 'critic')]))).toEqual(
      stop("Text message received from 'critic'", 'TextMessageTermination'),
    );
  });
});

describe('FunctionCallTermination', () => {
  it('stops when a result of the function is executed and says why', async () => {
    const c = new FunctionCallTermination('approve');
    expect(
      await c.check([
        requestEvent('critic', [call('approve')]),
        executionEvent('critic', [result('lookup')]),
        text('approve'),
      ]),
    ).toBeNull();
    expect(
      summary(
        await c.check([executionEvent('critic', [result('lookup'), result('approve', 'None')])]),
      ),
    ).toEqual(stop("Function 'approve' was executed.", 'FunctionCallTermination'));
  });
});

describe('FunctionalTermination', () => {
  it('passes each delta to the function and stops when it returns true', async () => {
    const seen: string[][] = [];
    const c = new FunctionalTermination((messages) => {
      seen.push(messages.map((m) => messageToText(m)));
      return messages.some((m) => messageToText(m).includes('enough'));
    });
    expect(await c.check([text('a'), text('b')])).toBeNull();
    expect(await c.check([])).toBeNull();
    expect(summary(await c.check([text('that is enough')]))).toEqual(
      stop('Functional termination condition met', 'FunctionalTermination'),
    );
    expect(seen).toEqual([['a', 'b'], [], ['that is enough']]);
  });

  it('awaits an async function', async () => {
    const c = new FunctionalTermination(async (messages) => messages.length >= 2);
    expect(await c.check([text('a')])).toBeNull();
    expect((await c.check([text('a'), text('b')]))?.content).toBe(
      'Functional termination condition met',
    );
  });
});

/** One row per built-in: a history that does not fire it, then a delta that does. */
interface BuiltIn {
  name: string;
  make: () => TerminationCondition;
  warmUp: Delta[];
  /** Runs on the instance that is about to see the firing delta (advance the clock, set()). */
  arm?: (c: TerminationCondition) => void;
  firing: Delta;
  content: string;
}

let clockNow = 0;
const clock = () => clockNow;

const builtIns: BuiltIn[] = [
  {
    name: 'MaxMessageTermination',
    make: () => new MaxMessageTermination(3),
    warmUp: [[text('a')], [text('b')]],
    firing: [text('c')],
    content: 'Maximum number of messages 3 reached, current message count: 3',
  },
  {
    name: 'TextMentionTermination',
    make: () => new TextMentionTermination('DONE', { sources: ['critic'] }),
    warmUp: [[text('DONE', 'writer')]],
    firing: [text('DONE', 'critic')],
    content: "Text 'DONE' mentioned",
  },
  {
    name: 'TokenUsageTermination',
    make: () => new TokenUsageTermination({ maxTotalToken: 10 }),
    warmUp: [[text('a', 'w', [3, 3])]],
    firing: [text('b', 'w', [2, 2])],
    content:
      'Token usage limit reached, total token count: 10, prompt token count: 5, completion token count: 5.',
  },
  {
    name: 'TimeoutTermination',
    make: () => {
      clockNow = 0;
      return new TimeoutTermination(5, { clock });
    },
    warmUp: [[text('a')]],
    arm: () => {
      clockNow += 5_000;
    },
    firing: [],
    content: 'Timeout of 5 seconds reached',
  },
  {
    name: 'HandoffTermination',
    make: () => new HandoffTermination('user'),
    warmUp: [[handoff('a', 'b')]],
    firing: [handoff('billing', 'user')],
    content: 'Handoff to user from billing detected.',
  },
  {
    name: 'SourceMatchTermination',
    make: () => new SourceMatchTermination(['critic']),
    warmUp: [[text('a', 'writer')]],
    firing: [text('b', 'critic')],
    content: "'critic' answered",
  },
  {
    name: 'ExternalTermination',
    make: () => new ExternalTermination(),
    warmUp: [[text('a')]],
    arm: (c) => (c as ExternalTermination).set(),
    firing: [text('b')],
    content: 'External termination requested',
  },
  {
    name: 'StopMessageTermination',
    make: () => new StopMessageTermination(),
    warmUp: [[text('a')]],
    firing: [stopMsg('bye')],
    content: 'Stop message received',
  },
  {
    name: 'TextMessageTermination',
    make: () => new TextMessageTermination('critic'),
    warmUp: [[text('a', 'writer')]],
    firing: [text('b', 'critic')],
    content: "Text message received from 'critic'",
  },
  {
    name: 'FunctionCallTermination',
    make: () => new FunctionCallTermination('approve'),
    warmUp: [[requestEvent('critic', [call('approve')])]],
    firing: [executionEvent('critic', [result('approve')])],
    content: "Function 'approve' was executed.",
  },
  {
    name: 'FunctionalTermination',
    make: () => new FunctionalTermination((ms) => ms.some((m) => messageToText(m) === 'now')),
    warmUp: [[text('not yet')]],
    firing: [text('now')],
    content: 'Functional termination condition met',
  },
];

async function runToFiring(b: BuiltIn, c: TerminationCondition) {
  for (const delta of b.warmUp) expect(await c.check(delta)).toBeNull();
  b.arm?.(c);
  return c.check(b.firing);
}

describe('every built-in condition', () => {
  it('covers all eleven built-ins', () => {
    expect(builtIns.map((b) => b.make().constructor.name)).toEqual(builtIns.map((b) => b.name));
  });

  describe.each(builtIns)('$name', (b) => {
    it('returns a valid StopMessage whose source is the class name', async () => {
      const c = b.make();
      expect(c.terminated).toBe(false);
      const message = await runToFiring(b, c);
      expect(summary(message)).toEqual(stop(b.content, b.name));
      expect(AgentMessageSchema.safeParse(message).success).toBe(true);
      expect(c.terminated).toBe(true);
    });

    it('returns null for an empty delta before it fires', async () => {
      const c = b.make();
      expect(await c.check([])).toBeNull();
    });

    it('rejects every check after firing with TerminatedError, until reset', async () => {
      const c = b.make();
      await runToFiring(b, c);
      await expectTerminatedError(() => c.check([]));
      await expectTerminatedError(() => c.check(b.firing));
      expect(c.terminated).toBe(true);
      c.reset();
      expect(c.terminated).toBe(false);
      expect(summary(await runToFiring(b, c))).toEqual(stop(b.content, b.name));
    });

    it('saves JSON state that a fresh instance loads and continues from identically', async () => {
      const original = b.make();
      for (const delta of b.warmUp) expect(await original.check(delta)).toBeNull();
      const state = viaJSON(original.saveState());
      const copy = b.make();
      copy.loadState(state);
      expect(copy.terminated).toBe(false);
      b.arm?.(copy);
      expect(summary(await copy.check(b.firing))).toEqual(stop(b.content, b.name));
    });

    it('saves a fired state that a fresh instance loads as fired', async () => {
      const original = b.make();
      await runToFiring(b, original);
      const copy = b.make();
      copy.loadState(viaJSON(original.saveState()));
      expect(copy.terminated).toBe(true);
      await expectTerminatedError(() => copy.check([]));
    });

    it('saves the state of a reset instance as a fresh one', async () => {
      const original = b.make();
      await runToFiring(b, original);
      original.reset();
      expect(viaJSON(original.saveState())).toEqual(viaJSON(b.make().saveState()));
    });
  });
});
