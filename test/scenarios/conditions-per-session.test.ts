import { describe, expect, it } from 'vitest';

import type { AgentContext, AgentResponse, ChatAgent } from '../../src/agents/chat-agent.js';
import {
  ConfigError,
  MemoryCheckpointStore,
  RoundRobinGroupChat,
  TerminationCondition,
  textMessage,
} from '../../src/index.js';
import type { AgentMessage, StopMessage } from '../../src/messages/message.js';
import { stopMessage } from '../../src/messages/message-factories.js';

// The review's reproductions (issue 28): a workflow gives each session its own condition only
// through the condition's own `clone()`; a custom condition without one serves a single session.

/** An agent that answers `"<name> <n>"`, numbering its answers per session, after `before`. */
function talker(name: string, before?: (ctx: AgentContext) => Promise<void>): ChatAgent {
  const counts = new Map<string, number>();
  return {
    name,
    description: `${name} agent`,
    async respond(ctx: AgentContext): Promise<AgentResponse> {
      await before?.(ctx);
      const n = (counts.get(ctx.sessionId) ?? 0) + 1;
      counts.set(ctx.sessionId, n);
      return { chatMessage: textMessage({ source: name, content: `${name} ${n}` }) };
    },
  };
}

const sources = (messages: readonly AgentMessage[]) => messages.map((m) => m.source);

/** A team of two talkers whose condition should stop it after `user → a → b`. */
function team(condition: TerminationCondition, before?: (ctx: AgentContext) => Promise<void>) {
  return new RoundRobinGroupChat([talker('a', before), talker('b')], {
    terminationCondition: condition,
    maxTurns: 5,
  });
}

const counted = (seen: number) => stopMessage({ source: 'Counting', content: `Counted ${seen}` });

function oneSessionOnly(className: string, owner: string): string {
  return (
    `${className} has no clone(), so a workflow can use it for one session only, and session ` +
    `${owner} has it. Implement clone() in ${className} (return a new instance with the same ` +
    'options) to give each session its own.'
  );
}

/** Public fields only; it counts through an arrow-function field. */
class ArrowCounting extends TerminationCondition {
  readonly limit: number;
  seen = 0;
  readonly tally = (messages: readonly AgentMessage[]): void => {
    this.seen += messages.length;
  };

  constructor(limit: number) {
    super();
    this.limit = limit;
  }
  get terminated(): boolean {
    return this.seen >= this.limit;
  }
  async check(messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    this.tally(messages);
    return this.terminated ? counted(this.seen) : null;
  }
  reset(): void {
    this.seen = 0;
  }
  override saveState(): unknown {
    return { seen: this.seen };
  }
  override loadState(state: unknown): void {
    this.seen =
      typeof state === 'object' && state !== null && 'seen' in state ? Number(state.seen) : 0;
  }
}

class ClonedArrowCounting extends ArrowCounting {
  override clone(): ClonedArrowCounting {
    return new ClonedArrowCounting(this.limit);
  }
}

describe('a custom condition with an arrow-function field', () => {
  it('stops its one session itself, and refuses a second session with a ConfigError', async () => {
    const condition = new ArrowCounting(3);
    const workflow = team(condition);

    const one = await workflow.session('one').run('hi');

    expect([sources(one.messages), one.stopReason]).toEqual([['user', 'a', 'b'], 'Counted 3']);
    await expect(workflow.session('two').run('hello')).rejects.toThrow(
      new ConfigError(oneSessionOnly('ArrowCounting', '"one"'), { path: 'terminationCondition' }),
    );
    expect(await workflow.session('two').messages()).toEqual([]);
    expect((await workflow.session('one').run('again')).stopReason).toEqual('Counted 3');
  });

  it('with its own clone(), counts per session and leaves the given object alone', async () => {
    const condition = new ClonedArrowCounting(3);
    const workflow = team(condition);

    const [one, two] = await Promise.all([
      workflow.session('one').run('hi'),
      workflow.session('two').run('hello'),
    ]);

    expect([one.stopReason, two.stopReason]).toEqual(['Counted 3', 'Counted 3']);
    expect([sources(one.messages), sources(two.messages)]).toEqual([
      ['user', 'a', 'b'],
      ['user', 'a', 'b'],
    ]);
    expect(condition.seen).toEqual(0);
  });
});

/** Public fields only, but a `'#'` followed by a letter in its source text; no saved state. */
class TicketCounting extends TerminationCondition {
  readonly limit: number;
  seen = 0;

  constructor(limit: number) {
    super();
    this.limit = limit;
  }
  get terminated(): boolean {
    return this.seen >= this.limit;
  }
  async check(messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    this.seen += messages.length;
    return this.terminated
      ? stopMessage({ source: 'Counting', content: `#ticket ${this.seen}` })
      : null;
  }
  reset(): void {
    this.seen = 0;
  }
}

describe("a custom condition with a '#' in a string of its class", () => {
  it('is never one counter shared by two sessions running at once', async () => {
    let release = (): void => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const condition = new TicketCounting(3);
    const workflow = team(condition, (ctx) => (ctx.sessionId === 'one' ? held : Promise.resolve()));

    const first = workflow.session('one').run('hi');
    const second = workflow.session('two').run('hello');
    const refused = await second.then(
      (result) => `ran to ${result.stopReason} after ${sources(result.messages).join(' → ')}`,
      (error: unknown) => (error instanceof ConfigError ? error.message : String(error)),
    );
    release();
    const one = await first;

    expect(refused).toEqual(oneSessionOnly('TicketCounting', '"one"'));
    expect([sources(one.messages), one.stopReason]).toEqual([['user', 'a', 'b'], '#ticket 3']);
  });
});

// `class EsbuildCounting { #limit; #seen = 0; … }` as esbuild 0.28 emits it for target es2020
// (`esbuild --target=es2020`): private fields become WeakMaps that only the constructor fills.
const __typeError = (msg: string): never => {
  throw TypeError(msg);
};
const __accessCheck = (obj: object, member: WeakMap<object, unknown>, msg: string) =>
  member.has(obj) || __typeError('Cannot ' + msg);
const __privateGet = <T>(obj: object, member: WeakMap<object, T>): T => (
  __accessCheck(obj, member, 'read from private field'),
  member.get(obj) as T
);
const __privateAdd = <T>(obj: object, member: WeakMap<object, T>, value?: T) =>
  member.has(obj)
    ? __typeError('Cannot add the same private member more than once')
    : member.set(obj, value as T);
const __privateSet = <T>(obj: object, member: WeakMap<object, T>, value: T): T => (
  __accessCheck(obj, member, 'write to private field'),
  member.set(obj, value),
  value
);
const _limit = new WeakMap<object, number>();
const _seen = new WeakMap<object, number>();
class EsbuildCounting extends TerminationCondition {
  constructor(limit: number) {
    super();
    __privateAdd(this, _limit);
    __privateAdd(this, _seen, 0);
    __privateSet(this, _limit, limit);
  }
  get terminated(): boolean {
    return __privateGet(this, _seen) >= __privateGet(this, _limit);
  }
  async check(messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    __privateSet(this, _seen, __privateGet(this, _seen) + messages.length);
    return this.terminated ? counted(__privateGet(this, _seen)) : null;
  }
  reset(): void {
    __privateSet(this, _seen, 0);
  }
}
class ClonedEsbuildCounting extends EsbuildCounting {
  override clone(): ClonedEsbuildCounting {
    return new ClonedEsbuildCounting(__privateGet(this, _limit));
  }
}

describe('a custom condition compiled by esbuild (private fields as WeakMaps)', () => {
  it('builds, and stops its one session', async () => {
    const workflow = team(new EsbuildCounting(3));
    const one = await workflow.run('hi');
    expect([sources(one.messages), one.stopReason]).toEqual([['user', 'a', 'b'], 'Counted 3']);
  });

  it('with its own clone(), stops every session', async () => {
    const workflow = team(new ClonedEsbuildCounting(3));
    const results = await Promise.all(['one', 'two'].map((id) => workflow.session(id).run(id)));
    expect(results.map((r) => r.stopReason)).toEqual(['Counted 3', 'Counted 3']);
  });
});

/** Keeps its count in an object that `saveState()` returns and `loadState()` keeps, as given. */
class BoxCounting extends TerminationCondition {
  readonly limit: number;
  readonly made: BoxCounting[];
  box = { seen: 0 };

  constructor(limit: number, made: BoxCounting[] = []) {
    super();
    this.limit = limit;
    this.made = made;
    made.push(this);
  }
  get terminated(): boolean {
    return this.box.seen >= this.limit;
  }
  async check(messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    this.box.seen += messages.length;
    return this.terminated ? counted(this.box.seen) : null;
  }
  reset(): void {
    this.box.seen = 0;
  }
  override clone(): BoxCounting {
    return new BoxCounting(this.limit, this.made);
  }
  override saveState(): unknown {
    return this.box;
  }
  override loadState(state: unknown): void {
    this.box = state as { seen: number };
  }
}

describe("a custom condition's saved state", () => {
  it('is copied by the engine, never frozen in place, in either direction', async () => {
    const made: BoxCounting[] = [];
    const store = new MemoryCheckpointStore();
    const options = {
      terminationCondition: new BoxCounting(3, made),
      maxTurns: 1,
      checkpointStore: store,
    };
    const first = new RoundRobinGroupChat([talker('a'), talker('b')], options);

    const short = await first.session('cond-box').run('hi');
    const later = new RoundRobinGroupChat([talker('a'), talker('b')], options);
    const resumed = await later.session('cond-box').run();

    expect([short.stopReason, resumed.stopReason]).toEqual([
      'Maximum number of turns 1 reached.',
      'Maximum number of turns 1 reached.',
    ]);
    expect(made.map((c) => Object.isFrozen(c.box))).toEqual(made.map(() => false));
    expect((await later.session('cond-box').saveState()) as { termination: unknown }).toMatchObject(
      { termination: { seen: 0 } },
    );
  });

  it('counts across deltas when the condition hands out and keeps the same object', async () => {
    const made: BoxCounting[] = [];
    const workflow = team(new BoxCounting(3, made));
    const one = await workflow.session('one').run('hi');
    expect([sources(one.messages), one.stopReason]).toEqual([['user', 'a', 'b'], 'Counted 3']);
    expect(made.map((c) => Object.isFrozen(c.box))).toEqual(made.map(() => false));
  });
});

describe('a condition without clone() given to a workflow', () => {
  it('inside a combinator: the error names the class that lacks clone()', async () => {
    const workflow = team(new TicketCounting(3).or(new ClonedArrowCounting(9)));

    const one = await workflow.session('one').run('hi');

    expect(one.stopReason).toEqual('#ticket 3');
    await expect(workflow.session('two').run('hello')).rejects.toThrow(
      new ConfigError(oneSessionOnly('TicketCounting', '"one"'), { path: 'terminationCondition' }),
    );
  });

  it('given to two workflows, serves the session that used it first', async () => {
    const condition = new TicketCounting(3);
    const first = team(condition);
    const second = team(condition);

    const one = await first.session('one').run('hi');

    expect(one.stopReason).toEqual('#ticket 3');
    await expect(second.session('one').run('hello')).rejects.toThrow(
      new ConfigError(oneSessionOnly('TicketCounting', '"one" of another workflow'), {
        path: 'terminationCondition',
      }),
    );
  });

  it('is reset when the workflow is built, as its one session starts from nothing', async () => {
    const condition = new TicketCounting(3);
    await condition.check([textMessage({ source: 'user', content: 'before' })]);
    const workflow = team(condition);
    expect(condition.seen).toEqual(0);
    expect((await workflow.run('hi')).stopReason).toEqual('#ticket 3');
  });
});
