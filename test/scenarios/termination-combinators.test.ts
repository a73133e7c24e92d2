import { describe, expect, it } from 'vitest';

import {
  type AgentMessage,
  AndTerminationCondition,
  ConfigError,
  ExternalTermination,
  FunctionalTermination,
  MaxMessageTermination,
  messageToText,
  OrTerminationCondition,
  SourceMatchTermination,
  type StopMessage,
  StopMessageTermination,
  stopMessage,
  TerminationCondition,
  TextMentionTermination,
  TimeoutTermination,
  TokenUsageTermination,
} from '../../src/index.js';
import {
  expectTerminatedError,
  handoff,
  stop,
  stopMsg,
  summary,
  text,
  thrownBy,
  viaJSON,
} from './termination-helpers.js';

/**
 * A custom condition that records every call in a shared log. It fires on a TextMessage whose
 * content is its trigger, and fails loudly if it is checked after firing.
 */
class Recorder extends TerminationCondition {
  readonly label: string;
  readonly trigger: string;
  readonly log: string[];
  #fired = false;

  constructor(label: string, trigger: string, log: string[]) {
    super();
    this.label = label;
    this.trigger = trigger;
    this.log = log;
  }

  get terminated(): boolean {
    return this.#fired;
  }

  async check(messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    this.log.push(`${this.label}(${messages.map((m) => messageToText(m)).join('|')})`);
    if (this.#fired) throw new Error(`${this.label} was checked after it fired`);
    if (messages.some((m) => m.type === 'TextMessage' && m.content === this.trigger)) {
      this.#fired = true;
      return stopMessage({ source: `${this.label}-src`, content: `${this.label} fired` });
    }
    return null;
  }

  reset(): void {
    this.log.push(`${this.label}.reset`);
    this.#fired = false;
  }
}

describe('OrTerminationCondition', () => {
  it('fires when any child fires and says why', async () => {
    const c = new OrTerminationCondition([
      new MaxMessageTermination(10),
      new TextMentionTermination('APPROVE'),
    ]);
    expect(await c.check([text('draft')])).toBeNull();
    expect(c.terminated).toBe(false);
    expect(summary(await c.check([text('APPROVE', 'critic')]))).toEqual(
      stop("Text 'APPROVE' mentioned", 'TextMentionTermination'),
    );
    expect(c.terminated).toBe(true);
  });

  it('feeds every child every delta, even after an earlier child fired on it', async () => {
    const log: string[] = [];
    const c = new OrTerminationCondition([
      new Recorder('A', 'a', log),
      new Recorder('B', 'b', log),
      new Recorder('C', 'c', log),
    ]);
    expect(await c.check([text('x')])).toBeNull();
    expect(summary(await c.check([text('a'), text('c')]))).toEqual(
      stop('A fired, C fired', 'A-src, C-src'),
    );
    expect(log).toEqual(['A(x)', 'B(x)', 'C(x)', 'A(a|c)', 'B(a|c)', 'C(a|c)']);
  });

  it('keeps counters current, so children that fire together are all reported', async () => {
    const c = new OrTerminationCondition([
      new MaxMessageTermination(3),
      new TextMentionTermination('X'),
    ]);
    expect(await c.check([text('a'), text('b')])).toBeNull();
    expect(summary(await c.check([text('X marks it')]))).toEqual(
      stop(
        "Maximum number of messages 3 reached, current message count: 3, Text 'X' mentioned",
        'MaxMessageTermination, TextMentionTermination',
      ),
    );
  });

  it('joins in child order, not in the order the messages came', async () => {
    const c = new OrTerminationCondition([
      new TextMentionTermination('second'),
      new StopMessageTermination(),
      new SourceMatchTermination(['critic']),
    ]);
    expect(summary(await c.check([text('x', 'critic'), stopMsg('y'), text('second')]))).toEqual(
      stop(
        "Text 'second' mentioned, Stop message received, 'critic' answered",
        'TextMentionTermination, StopMessageTermination, SourceMatchTermination',
      ),
    );
  });

  it('is what .or() builds', async () => {
    const c = new MaxMessageTermination(2).or(new TextMentionTermination('DONE'));
    expect(c).toBeInstanceOf(OrTerminationCondition);
    expect(await c.check([text('a')])).toBeNull();
    expect((await c.check([text('b')]))?.content).toBe(
      'Maximum number of messages 2 reached, current message count: 2',
    );
  });

  it('rejects checks after firing with TerminatedError until reset', async () => {
    const c = new MaxMessageTermination(1).or(new StopMessageTermination());
    await c.check([text('a')]);
    await expectTerminatedError(() => c.check([]));
    await expectTerminatedError(() => c.check([text('b')]));
    c.reset();
    expect(c.terminated).toBe(false);
    expect(summary(await c.check([stopMsg('s')]))).toEqual(
      stop(
        'Maximum number of messages 1 reached, current message count: 1, Stop message received',
        'MaxMessageTermination, StopMessageTermination',
      ),
    );
  });

  it('resets every child', async () => {
    const log: string[] = [];
    const max = new MaxMessageTermination(2);
    const c = new OrTerminationCondition([max, new Recorder('A', 'a', log)]);
    await c.check([text('x')]);
    c.reset();
    expect(log).toEqual(['A(x)', 'A.reset']);
    expect(await c.check([text('y')])).toBeNull();
    expect(max.terminated).toBe(false);
  });
});

describe('AndTerminationCondition', () => {
  it('fires once every child has fired, on different deltas, and says why', async () => {
    const c = new AndTerminationCondition([
      new TextMentionTermination('APPROVE', { sources: ['reviewer'] }),
      new TextMentionTermination('APPROVE', { sources: ['editor'] }),
    ]);
    expect(await c.check([text('APPROVE', 'reviewer')])).toBeNull();
    expect(c.terminated).toBe(false);
    expect(await c.check([text('not yet', 'editor')])).toBeNull();
    expect(summary(await c.check([text('APPROVE', 'editor')]))).toEqual(
      stop(
        "Text 'APPROVE' mentioned, Text 'APPROVE' mentioned",
        'TextMentionTermination, TextMentionTermination',
      ),
    );
    expect(c.terminated).toBe(true);
  });

  it('does not call a child again once it has fired', async () => {
    const log: string[] = [];
    const c = new AndTerminationCondition([
      new Recorder('A', 'a', log),
      new Recorder('B', 'b', log),
      new Recorder('C', 'c', log),
    ]);
    expect(await c.check([text('b')])).toBeNull();
    expect(await c.check([text('x')])).toBeNull();
    expect(await c.check([text('a')])).toBeNull();
    expect(summary(await c.check([text('c')]))).toEqual(
      stop('B fired, A fired, C fired', 'B-src, A-src, C-src'),
    );
    expect(log).toEqual(['A(b)', 'B(b)', 'C(b)', 'A(x)', 'C(x)', 'A(a)', 'C(a)', 'C(c)']);
  });

  it('joins children that fire on the same delta in child order', async () => {
    const log: string[] = [];
    const c = new AndTerminationCondition([
      new Recorder('A', 'a', log),
      new Recorder('B', 'b', log),
      new Recorder('C', 'c', log),
    ]);
    expect(await c.check([text('c')])).toBeNull();
    expect(summary(await c.check([text('b'), text('a')]))).toEqual(
      stop('C fired, A fired, B fired', 'C-src, A-src, B-src'),
    );
  });

  it('fires on a single delta when every child fires on it', async () => {
    const c = new MaxMessageTermination(1).and(new StopMessageTermination());
    expect(c).toBeInstanceOf(AndTerminationCondition);
    expect(summary(await c.check([stopMsg('bye')]))).toEqual(
      stop(
        'Maximum number of messages 1 reached, current message count: 1, Stop message received',
        'MaxMessageTermination, StopMessageTermination',
      ),
    );
  });

  it('keeps a fired child latched, even though its own counter would have moved on', async () => {
    const c = new AndTerminationCondition([
      new MaxMessageTermination(2),
      new TextMentionTermination('DONE'),
    ]);
    expect(await c.check([text('a'), text('b')])).toBeNull();
    expect(await c.check([text('c'), text('d'), text('e')])).toBeNull();
    expect(summary(await c.check([text('DONE')]))).toEqual(
      stop(
        "Maximum number of messages 2 reached, current message count: 2, Text 'DONE' mentioned",
        'MaxMessageTermination, TextMentionTermination',
      ),
    );
  });

  it('rejects checks after firing with TerminatedError until reset', async () => {
    const c = new MaxMessageTermination(1).and(new StopMessageTermination());
    await c.check([stopMsg('s')]);
    await expectTerminatedError(() => c.check([]));
    c.reset();
    expect(c.terminated).toBe(false);
    expect(await c.check([stopMsg('s')])).not.toBeNull();
  });

  it('resets every child, including the ones that fired', async () => {
    const log: string[] = [];
    const c = new AndTerminationCondition([
      new Recorder('A', 'a', log),
      new Recorder('B', 'b', log),
    ]);
    await c.check([text('a')]);
    c.reset();
    expect(log).toEqual(['A(a)', 'B(a)', 'A.reset', 'B.reset']);
    log.length = 0;
    expect(await c.check([text('b')])).toBeNull();
    expect(summary(await c.check([text('a')]))).toEqual(stop('B fired, A fired', 'B-src, A-src'));
    expect(log).toEqual(['A(b)', 'B(b)', 'A(a)']);
  });
});

describe('nested combinators', () => {
  it('an And of an Or reports the Or with its own joined reason', async () => {
    const c = new MaxMessageTermination(5)
      .or(new StopMessageTermination())
      .and(new TextMentionTermination('APPROVE'));
    expect(await c.check([text('APPROVE')])).toBeNull();
    expect(await c.check([text('a'), text('b')])).toBeNull();
    expect(summary(await c.check([text('c'), stopMsg('stop')]))).toEqual(
      stop(
        "Text 'APPROVE' mentioned, Maximum number of messages 5 reached, current message count: 5, Stop message received",
        'TextMentionTermination, MaxMessageTermination, StopMessageTermination',
      ),
    );
  });

  it('an Or of Ands fires when the first And completes', async () => {
    const c = new OrTerminationCondition([
      new AndTerminationCondition([new StopMessageTermination(), new MaxMessageTermination(3)]),
      new AndTerminationCondition([
        new TextMentionTermination('X'),
        new SourceMatchTermination(['critic']),
      ]),
    ]);
    expect(await c.check([stopMsg('s')])).toBeNull();
    expect(await c.check([text('X')])).toBeNull();
    expect(summary(await c.check([text('hi', 'critic')]))).toEqual(
      stop(
        "Stop message received, Maximum number of messages 3 reached, current message count: 3, Text 'X' mentioned, 'critic' answered",
        'StopMessageTermination, MaxMessageTermination, TextMentionTermination, SourceMatchTermination',
      ),
    );
  });

  it('resets every condition at every depth', async () => {
    const log: string[] = [];
    const c = new Recorder('A', 'a', log)
      .and(new Recorder('B', 'b', log).or(new Recorder('C', 'c', log)))
      .or(new Recorder('D', 'd', log));
    await c.check([text('a')]);
    await c.check([text('c')]);
    expect(c.terminated).toBe(true);
    log.length = 0;
    c.reset();
    expect([...log].sort()).toEqual(['A.reset', 'B.reset', 'C.reset', 'D.reset']);
    expect(c.terminated).toBe(false);
    expect(await c.check([text('b')])).toBeNull();
    expect(summary(await c.check([text('a')]))).toEqual(stop('B fired, A fired', 'B-src, A-src'));
  });

  it('propagates a timeout and an external stop through combinators', async () => {
    let now = 0;
    const external = new ExternalTermination();
    const c = new TimeoutTermination(10, { clock: () => now })
      .or(external)
      .or(new MaxMessageTermination(100));
    expect(await c.check([])).toBeNull();
    now = 10_000;
    external.set();
    expect(summary(await c.check([]))).toEqual(
      stop(
        'Timeout of 10 seconds reached, External termination requested',
        'TimeoutTermination, ExternalTermination',
      ),
    );
  });
});

describe('combinator state', () => {
  it('an Or saves its children so a fresh Or continues their counts', async () => {
    const make = () =>
      new OrTerminationCondition([
        new MaxMessageTermination(4),
        new TokenUsageTermination({ maxTotalToken: 100 }),
      ]);
    const original = make();
    expect(await original.check([text('a', 'w', [30, 30]), text('b')])).toBeNull();
    const copy = make();
    copy.loadState(viaJSON(original.saveState()));
    expect(await copy.check([text('c')])).toBeNull();
    expect(summary(await copy.check([text('d', 'w', [20, 20])]))).toEqual(
      stop(
        'Maximum number of messages 4 reached, current message count: 4, Token usage limit reached, total token count: 100, prompt token count: 50, completion token count: 50.',
        'MaxMessageTermination, TokenUsageTermination',
      ),
    );
  });

  it('an And saves which children fired and in what order', async () => {
    const make = () =>
      new AndTerminationCondition([
        new TextMentionTermination('A'),
        new TextMentionTermination('B'),
        new MaxMessageTermination(10),
      ]);
    const original = make();
    expect(await original.check([text('B')])).toBeNull();
    expect(await original.check([text('A')])).toBeNull();
    const copy = make();
    copy.loadState(viaJSON(original.saveState()));
    expect(copy.terminated).toBe(false);
    expect(await copy.check(Array.from({ length: 7 }, (_, i) => text(`m${i}`)))).toBeNull();
    expect(summary(await copy.check([text('last')]))).toEqual(
      stop(
        "Text 'B' mentioned, Text 'A' mentioned, Maximum number of messages 10 reached, current message count: 10",
        'TextMentionTermination, TextMentionTermination, MaxMessageTermination',
      ),
    );
  });

  it('saves a snapshot that later checks do not change', async () => {
    const c = new AndTerminationCondition([
      new TextMentionTermination('A'),
      new MaxMessageTermination(3),
      new TextMentionTermination('B'),
    ]);
    await c.check([text('A')]);
    const state = c.saveState();
    const before = viaJSON(state);
    await c.check([text('B'), text('x')]);
    expect(viaJSON(state)).toEqual(before);
  });

  it('loads one saved state into several instances independently', async () => {
    const make = () =>
      new AndTerminationCondition([new TextMentionTermination('A'), new MaxMessageTermination(3)]);
    const original = make();
    await original.check([text('A')]);
    const state = original.saveState();
    const first = make();
    first.loadState(state);
    expect((await first.check([text('x'), text('y')]))?.content).toBe(
      "Text 'A' mentioned, Maximum number of messages 3 reached, current message count: 3",
    );
    const second = make();
    second.loadState(state);
    expect(second.terminated).toBe(false);
    expect(await second.check([text('x')])).toBeNull();
    expect((await second.check([text('y')]))?.content).toBe(
      "Text 'A' mentioned, Maximum number of messages 3 reached, current message count: 3",
    );
  });

  it('a fired combinator loads as fired', async () => {
    const make = () => new StopMessageTermination().or(new MaxMessageTermination(5));
    const original = make();
    await original.check([stopMsg('s')]);
    const copy = make();
    copy.loadState(viaJSON(original.saveState()));
    expect(copy.terminated).toBe(true);
    await expectTerminatedError(() => copy.check([]));
  });
});

describe('custom TerminationCondition subclasses', () => {
  it('get .or() and .and() from the base class', async () => {
    const log: string[] = [];
    const either = new Recorder('A', 'a', log).or(new MaxMessageTermination(2));
    expect(either).toBeInstanceOf(OrTerminationCondition);
    expect(await either.check([text('x')])).toBeNull();
    expect(summary(await either.check([text('a')]))).toEqual(
      stop(
        'A fired, Maximum number of messages 2 reached, current message count: 2',
        'A-src, MaxMessageTermination',
      ),
    );
    const both = new Recorder('B', 'b', log).and(new Recorder('C', 'c', log));
    expect(both).toBeInstanceOf(AndTerminationCondition);
    expect(await both.check([text('c')])).toBeNull();
    expect(summary(await both.check([text('b')]))).toEqual(
      stop('C fired, B fired', 'C-src, B-src'),
    );
  });

  it('save a null state', () => {
    expect(new Recorder('A', 'a', []).saveState()).toBeNull();
  });

  it('cannot be turned into JSON, alone or inside a combinator', () => {
    const alone = thrownBy(() => new Recorder('A', 'a', []).toJSON());
    expect(alone).toBeInstanceOf(ConfigError);
    expect((alone as Error).name).toBe('ConfigError');
    const inside = thrownBy(() =>
      new MaxMessageTermination(3).or(new Recorder('A', 'a', [])).toJSON(),
    );
    expect(inside).toBeInstanceOf(ConfigError);
  });

  it('can be combined with FunctionalTermination', async () => {
    const c = new FunctionalTermination((ms) => ms.length === 0).or(new Recorder('A', 'a', []));
    expect(await c.check([handoff('a', 'b')])).toBeNull();
    expect(summary(await c.check([]))).toEqual(
      stop('Functional termination condition met', 'FunctionalTermination'),
    );
  });
});
