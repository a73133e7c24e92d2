import { describe, expect, it } from 'vitest';

import type { AgentContext, AgentResponse, ChatAgent } from '../../src/agents/chat-agent.js';
import type {
  CheckpointRecord,
  CheckpointStore,
  ListOptions,
  ReadOptions,
  SessionPage,
} from '../../src/index.js';
import {
  Agent,
  CheckpointError,
  ConfigError,
  ExternalTermination,
  FunctionalTermination,
  HandoffBuilder,
  MaxMessageTermination,
  MemoryCheckpointStore,
  RoundRobinGroupChat,
  ScriptedChatClient,
  SessionBusyError,
  Swarm,
  scriptedText,
  scriptedToolCall,
  TerminationCondition,
  textMessage,
} from '../../src/index.js';
import type { AgentMessage, StopMessage } from '../../src/messages/message.js';
import { stopMessage } from '../../src/messages/message-factories.js';
import { FakeAgent } from '../support/fake-agent.js';

/** An agent that numbers its answers per session and runs `before` ahead of each answer. */
function talker(name: string, before?: (ctx: AgentContext) => void | Promise<void>): ChatAgent {
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

const texts = (messages: readonly AgentMessage[]) =>
  messages.map(
    (m) => `${m.source}: ${'content' in m && typeof m.content === 'string' ? m.content : m.type}`,
  );

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** A custom condition with public fields and its own clone(): counts messages, fires at `limit`. */
class CountingCondition extends TerminationCondition {
  readonly limit: number;
  seen = 0;
  readonly log: string[] = [];

  constructor(limit: number) {
    super();
    this.limit = limit;
  }
  get terminated(): boolean {
    return this.seen >= this.limit;
  }
  async check(messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    this.seen += messages.length;
    this.log.push(...messages.map((m) => m.source));
    return this.terminated
      ? stopMessage({ source: 'CountingCondition', content: `Counted ${this.seen}` })
      : null;
  }
  reset(): void {
    this.seen = 0;
    this.log.length = 0;
  }
  override clone(): CountingCondition {
    return new CountingCondition(this.limit);
  }
  override saveState(): unknown {
    return { seen: this.seen, log: [...this.log] };
  }
  override loadState(state: unknown): void {
    const s = state as { seen: number; log: string[] };
    this.seen = s.seen;
    this.log.splice(0, this.log.length, ...s.log);
  }
}

describe('a condition instance per session', () => {
  it('never changes the condition object the workflow was given', async () => {
    const condition = new MaxMessageTermination(10);
    await condition.check([textMessage({ source: 'user', content: 'before' })]);
    const team = new Swarm([new FakeAgent('agent', [{ handoff: 'user' }])], {
      terminationCondition: condition,
    });

    const paused = await team.session('one').run('hi');

    expect(paused.status).toEqual('awaiting_input');
    expect(condition.saveState()).toEqual({ count: 1 });
    expect((await team.session('one').saveState()) as { termination: unknown }).toMatchObject({
      termination: { count: 2 },
    });
  });

  it('gives each session its own clone of a custom condition', async () => {
    const condition = new CountingCondition(3);
    const team = new RoundRobinGroupChat([talker('a'), talker('b')], {
      terminationCondition: condition,
      maxTurns: 1,
    });
    const copy = condition.clone();

    const one = await team.session('one').run('hi');
    const two = await team.session('two').run('hello');

    expect([one.stopReason, two.stopReason]).toEqual([
      'Maximum number of turns 1 reached.',
      'Maximum number of turns 1 reached.',
    ]);
    expect([condition.seen, condition.log]).toEqual([0, []]);
    expect(copy).toBeInstanceOf(CountingCondition);
    expect([copy.limit, copy.seen, copy.log === condition.log]).toEqual([3, 0, false]);
  });

  it("lets one session's slow FunctionalTermination delay no other session", async () => {
    const slow = gate();
    const seen: string[] = [];
    const team = new RoundRobinGroupChat([talker('a')], {
      maxTurns: 1,
      terminationCondition: new FunctionalTermination(async (delta) => {
        if (delta.some((m) => m.source === 'user' && 'content' in m && m.content === 'slow')) {
          seen.push('slow check starts');
          await slow.opened;
          seen.push('slow check ends');
        }
        return false;
      }),
    });

    const slowRun = team.session('slow').run('slow');
    const fast = await team.session('fast').run('fast');
    seen.push(`fast: ${fast.stopReason}`);
    slow.open();
    const slowResult = await slowRun;

    expect(seen).toEqual([
      'slow check starts',
      'fast: Maximum number of turns 1 reached.',
      'slow check ends',
    ]);
    expect(texts(slowResult.messages)).toEqual(['user: slow', 'a: a 1']);
  });

  it('rebuilds every built-in from its options, fresh', async () => {
    const built = [
      new MaxMessageTermination(2, { includeAgentEvent: true }),
      new ExternalTermination(),
      new FunctionalTermination(() => true).or(new MaxMessageTermination(1)),
    ];
    await built[0]?.check([textMessage({ source: 'user', content: 'x' })]);
    const clones = built.map((c) => c.clone());
    expect(clones.map((c) => c.toJSON === undefined || c.constructor.name)).toEqual([
      'MaxMessageTermination',
      'ExternalTermination',
      'OrTerminationCondition',
    ]);
    expect(clones[0]?.toJSON()).toEqual({
      type: 'MaxMessageTermination',
      maxMessages: 2,
      includeAgentEvent: true,
    });
    expect(clones[0]?.saveState()).toEqual({ count: 0 });
    expect(await clones[2]?.check([])).toEqual(
      expect.objectContaining({ content: 'Functional termination condition met' }),
    );
  });
});

describe('ExternalTermination given to a workflow', () => {
  it('is one stop button: every session stops at its next check, once', async () => {
    const stop = new ExternalTermination();
    let pressDuring = 'nobody';
    const team = new RoundRobinGroupChat(
      [
        talker('a', (ctx) => {
          if (ctx.sessionId === pressDuring) stop.set();
        }),
        talker('b'),
      ],
      { terminationCondition: stop, maxTurns: 2 },
    );
    await team.session('one').run('first');
    await team.session('two').run('first');

    stop.set();
    const one = await team.session('one').run('second');
    const two = await team.session('two').run('second');
    const oneAgain = await team.session('one').run('third');
    // The request stands (and stops sessions loaded later) until the button is released.
    stop.reset();
    pressDuring = 'three';
    const three = await team.session('three').run('go');

    expect([one.stopReason, texts(one.messages)]).toEqual([
      'External termination requested',
      ['user: second'],
    ]);
    expect([two.stopReason, texts(two.messages)]).toEqual([
      'External termination requested',
      ['user: second'],
    ]);
    expect([oneAgain.stopReason, texts(oneAgain.messages)]).toEqual([
      'Maximum number of turns 2 reached.',
      ['user: third', 'a: a 2', 'b: b 2'],
    ]);
    expect([three.stopReason, texts(three.messages)]).toEqual([
      'External termination requested',
      ['user: go', 'a: a 1'],
    ]);
    expect(stop.terminated).toEqual(false);
  });
});

describe('session.stop()', () => {
  it('stops just that session after its current agent turn', async () => {
    const team = new RoundRobinGroupChat(
      [
        talker('a', (ctx) => {
          if (ctx.sessionId === 'x') team.session('x').stop('Closed by operator');
        }),
        talker('b'),
      ],
      { maxTurns: 3 },
    );

    const [x, y] = await Promise.all([team.session('x').run('hi'), team.session('y').run('hi')]);

    expect([x.status, x.stopReason, texts(x.messages)]).toEqual([
      'terminated',
      'Closed by operator',
      ['user: hi', 'a: a 1'],
    ]);
    expect([y.stopReason, texts(y.messages)]).toEqual([
      'Maximum number of turns 3 reached.',
      ['user: hi', 'a: a 1', 'b: b 1', 'a: a 2'],
    ]);
  });

  it('stops an idle session at its next run, with the default reason, once', async () => {
    const team = new RoundRobinGroupChat([talker('a')], { maxTurns: 1 });
    const session = team.session('z');
    session.stop();

    const stopped = await session.run('hi');
    const next = await session.run('again');

    expect([stopped.status, stopped.stopReason, texts(stopped.messages)]).toEqual([
      'terminated',
      'External termination requested',
      ['user: hi'],
    ]);
    expect([next.stopReason, texts(next.messages)]).toEqual([
      'Maximum number of turns 1 reached.',
      ['user: again', 'a: a 1'],
    ]);
    expect(() => session.stop('')).toThrowErrorMatchingInlineSnapshot(
      `[ConfigError: session("z").stop(): the reason must be a non-empty string, got "".]`,
    );
  });

  it('keeps the request when the commit of the stop fails (issue 27 #20)', async () => {
    const store = new WatchedStore();
    const team = new RoundRobinGroupChat([talker('a')], { maxTurns: 1, checkpointStore: store });
    const session = team.session('w');
    session.stop('Closed by operator');
    store.appends = 'fail once';

    await expect(session.run('hi')).rejects.toThrow('connect ECONNREFUSED 127.0.0.1:5432');
    const stopped = await session.run('hi');
    const next = await session.run('again');

    expect([stopped.status, stopped.stopReason, texts(stopped.messages)]).toEqual([
      'terminated',
      'Closed by operator',
      ['user: hi'],
    ]);
    expect([next.stopReason, texts(next.messages)]).toEqual([
      'Maximum number of turns 1 reached.',
      ['user: again', 'a: a 1'],
    ]);
  });
});

/** A store that records which sessions were read, and can refuse or fail its leases. */
class WatchedStore implements CheckpointStore {
  readonly inner: MemoryCheckpointStore;
  readonly reads: string[] = [];
  leases: 'grant' | 'fail' = 'grant';
  appends: 'accept' | 'fail once' = 'accept';

  constructor(inner = new MemoryCheckpointStore()) {
    this.inner = inner;
  }
  async append(sessionId: string, record: CheckpointRecord): Promise<boolean> {
    if (this.appends === 'fail once') {
      this.appends = 'accept';
      throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    }
    return this.inner.append(sessionId, record);
  }
  read(sessionId: string, options?: ReadOptions): Promise<CheckpointRecord[]> {
    this.reads.push(sessionId);
    return this.inner.read(sessionId, options);
  }
  async acquireLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    if (this.leases === 'fail') throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    return this.inner.acquireLease(sessionId, owner, ttlMs);
  }
  releaseLease(sessionId: string, owner: string): Promise<void> {
    return this.inner.releaseLease(sessionId, owner);
  }
  leaseHolder(sessionId: string): Promise<string | null> {
    return this.inner.leaseHolder(sessionId);
  }
  delete(sessionId: string): Promise<boolean> {
    return this.inner.delete(sessionId);
  }
  list(options?: ListOptions): Promise<SessionPage> {
    return this.inner.list(options);
  }
  deleteOlderThan(date: Date): Promise<number> {
    return this.inner.deleteOlderThan(date);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

describe('sessionCacheSize', () => {
  it('keeps at most that many idle sessions and reloads the others from the store', async () => {
    const store = new WatchedStore();
    const team = new RoundRobinGroupChat([talker('a'), talker('b')], {
      maxTurns: 1,
      checkpointStore: store,
      sessionCacheSize: 2,
    });
    const first = team.session('s1');
    await first.run('one');
    for (const id of ['s2', 's3', 's4']) await team.session(id).run('one');
    expect(team.sessionsInMemory).toEqual(2);

    store.reads.length = 0;
    const resumed = await first.run('two');

    expect(store.reads.includes('s1')).toEqual(true);
    expect(texts(resumed.messages)).toEqual(['user: two', 'b: b 1']);
    expect(texts(await team.session('s1').messages())).toEqual([
      'user: one',
      'a: a 1',
      'user: two',
      'b: b 1',
    ]);
    expect(team.sessionsInMemory).toEqual(2);
  });

  it('keeps sessions without a store until dispose()', async () => {
    const team = new RoundRobinGroupChat([talker('a')], { maxTurns: 1 });
    for (const id of ['s1', 's2', 's3']) await team.session(id).run('one');
    expect(team.sessionsInMemory).toEqual(3);

    team.session('s1').dispose();

    expect(team.sessionsInMemory).toEqual(2);
    expect(await team.session('s1').messages()).toEqual([]);
    expect(texts(await team.session('s2').messages())).toEqual(['user: one', 'a: a 1']);
  });

  it('refuses dispose() of a running session, and bad cache sizes', async () => {
    let refused: unknown;
    const team = new RoundRobinGroupChat(
      [
        talker('a', () => {
          try {
            team.session('busy').dispose();
          } catch (error) {
            refused = error;
          }
        }),
      ],
      { maxTurns: 1 },
    );
    await team.session('busy').run('hi');

    expect(refused).toBeInstanceOf(SessionBusyError);
    expect(() => new RoundRobinGroupChat([talker('a')], { sessionCacheSize: 5 })).toThrow(
      'RoundRobinGroupChat: sessionCacheSize needs a checkpointStore',
    );
    expect(
      () =>
        new RoundRobinGroupChat([talker('a')], {
          checkpointStore: new MemoryCheckpointStore(),
          sessionCacheSize: -1,
        }),
    ).toThrowErrorMatchingInlineSnapshot(
      `[ConfigError: RoundRobinGroupChat: sessionCacheSize must be an integer >= 0, got -1. Leave it out for the default of 1000.]`,
    );
    expect(() =>
      new HandoffBuilder({ participants: [new FakeAgent('triage', [])] })
        .coordinator('triage')
        .withCheckpointing(new MemoryCheckpointStore(), { sessionCacheSize: 1.5 }),
    ).toThrow(ConfigError);
  });
});

describe('a run that loses its lease or its store', () => {
  /** triage hands off to billing; `during` runs inside triage's model call. */
  function desk(store: CheckpointStore, clock: () => number, during: () => Promise<void>) {
    const triageClient = new ScriptedChatClient(async () => {
      await during();
      return scriptedToolCall('handoff_to_billing', {}, 'call_1');
    });
    const billingClient = new ScriptedChatClient([scriptedText('Which invoice?')]);
    const triage = new Agent({ name: 'triage', client: triageClient });
    const billing = new Agent({ name: 'billing', client: billingClient });
    const workflow = new HandoffBuilder({ participants: [triage, billing] })
      .coordinator(triage)
      .withCheckpointing(store, { clock })
      .build();
    return { workflow, billingClient };
  }

  it('stops before its next model call and never commits once another process took the session', async () => {
    let now = 0;
    const clock = () => now;
    const store = new MemoryCheckpointStore({ clock });
    const { workflow, billingClient } = desk(store, clock, async () => {
      now += 4_000;
      await store.acquireLease('s', 'another-process', 3_000);
    });

    const run = workflow.session('s').run('My invoice is wrong');

    await expect(run).rejects.toThrowErrorMatchingInlineSnapshot(
      `[CheckpointError: Session "s" stopped before step 2: another process took its lease. Nothing after step 1 was committed; run the session again once the store is reachable (it continues from its last committed step).]`,
    );
    expect(billingClient.calls.length).toEqual(0);
    expect((await store.read('s', { from: 'start' })).map((r) => r.step)).toEqual([1]);
  });

  it('rejects with CheckpointError when the store cannot be reached, and resumes later', async () => {
    let now = 0;
    const clock = () => now;
    const store = new WatchedStore(new MemoryCheckpointStore({ clock }));
    let calls = 0;
    const { workflow, billingClient } = desk(store, clock, async () => {
      calls++;
      if (calls === 1) {
        now += 1_500;
        store.leases = 'fail';
      }
    });

    const failed = await workflow
      .session('s')
      .run('My invoice is wrong')
      .catch((error: unknown) => error);
    store.leases = 'grant';
    now += 5_000;
    const resumed = await workflow.session('s').run();

    expect(failed).toBeInstanceOf(CheckpointError);
    expect((failed as Error).message).toEqual(
      'Session "s" stopped before step 2: its store cannot be reached to renew the lease ' +
        '(connect ECONNREFUSED 127.0.0.1:5432). Nothing after step 1 was committed; run the ' +
        'session again once the store is reachable (it continues from its last committed step).',
    );
    expect([resumed.status, texts(resumed.messages)]).toEqual([
      'awaiting_input',
      [
        'triage: ToolCallRequestEvent',
        'triage: ToolCallExecutionEvent',
        'triage: Transferred to billing, adopting the role of billing immediately.',
        'billing: Which invoice?',
        'billing: Which invoice?',
      ],
    ]);
    expect(billingClient.calls.length).toEqual(1);
  });
});
