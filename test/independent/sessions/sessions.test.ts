// Black-box suite for API.md §14 (sessions in a long-running server), written from API.md alone: it
// imports only the public surface.
import { describe, expect, it } from 'vitest';

import {
  Agent,
  type AgentMessage,
  type CheckpointStore,
  CheckpointError,
  ExternalTermination,
  FunctionalTermination,
  HandoffBuilder,
  MaxMessageTermination,
  MemoryCheckpointStore,
  RoundRobinGroupChat,
  ScriptedChatClient,
  SelectorGroupChat,
  SessionBusyError,
  Swarm,
} from '../../../src/index.js';
import { openFile, openMemory, openPostgres, openRedis } from '../../support/store-fixtures.js';

/** An agent that answers `<name> <n>` on its n-th call, forever. */
function counter(name: string): Agent {
  return new Agent({
    name,
    client: new ScriptedChatClient((_request, i) => ({ content: `${name} ${i + 1}` })),
  });
}

const texts = (messages: readonly AgentMessage[]) =>
  messages.map((m) => `${m.source}: ${'content' in m ? String(m.content) : ''}`);

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** An agent `slow` whose model call says when it started and answers `text` when released. */
function gatedAgent(text: string) {
  const started = deferred();
  const release = deferred();
  const agent = new Agent({
    name: 'slow',
    client: new ScriptedChatClient(async () => {
      started.resolve();
      await release.promise;
      return { content: text };
    }),
  });
  return { agent, started: started.promise, release: release.resolve };
}

describe('per-session termination conditions (API.md §14)', () => {
  it('gives every session its own count, and leaves the given condition object untouched', async () => {
    const condition = new MaxMessageTermination(3);
    const team = new RoundRobinGroupChat([counter('a'), counter('b')], {
      terminationCondition: condition,
    });
    const one = await team.session('one').run('go');
    const two = await team.session('two').run('go');
    expect(texts(one.messages)).toEqual(['user: go', 'a: a 1', 'b: b 1']);
    expect(texts(two.messages)).toEqual(['user: go', 'a: a 2', 'b: b 2']);
    expect(two.stopReason).toBe('Maximum number of messages 3 reached, current message count: 3');
    expect(condition.terminated).toBe(false);
    expect(condition.saveState()).toEqual(new MaxMessageTermination(3).saveState());
  });

  it("never delays one session on another session's slow condition", async () => {
    const gate = deferred();
    const slowChecked = deferred();
    const condition = new FunctionalTermination(async (messages) => {
      if (messages.some((m) => 'content' in m && m.content === 'slow')) {
        slowChecked.resolve();
        await gate.promise;
      }
      return false;
    });
    const team = new RoundRobinGroupChat([counter('a')], {
      terminationCondition: condition,
      maxTurns: 1,
    });
    const slow = team.session('slow').run('slow');
    await slowChecked.promise;
    // The slow session is blocked inside its own check: the fast one runs to its end meanwhile.
    const fast = await team.session('fast').run('fast');
    expect(fast.stopReason).toBe('Maximum number of turns 1 reached.');
    expect((await team.session('slow').info()).status).toBe('running');
    gate.resolve();
    expect((await slow).stopReason).toBe('Maximum number of turns 1 reached.');
  });

  it('stops every session with one ExternalTermination, each at its next check', async () => {
    const stop = new ExternalTermination();
    const team = new RoundRobinGroupChat([counter('a'), counter('b')], {
      terminationCondition: stop,
      maxTurns: 2,
    });
    await team.session('x').run('first');
    stop.set();
    const x = await team.session('x').run('again');
    const y = await team.session('y').run('hello');
    expect(x.stopReason).toBe('External termination requested');
    expect(y.stopReason).toBe('External termination requested');
  });

  it('stops one session with session.stop(reason?), after the current agent turn', async () => {
    const { agent: slow, started, release } = gatedAgent('slow answer');
    const team = new RoundRobinGroupChat([slow, counter('b')], { maxTurns: 10 });
    const session = team.session('s');
    const running = session.run('go');
    await started;
    session.stop('closing time');
    release();
    const result = await running;
    expect(result.status).toBe('terminated');
    expect(result.stopReason).toBe('closing time');
    expect(texts(result.messages)).toEqual(['user: go', 'slow: slow answer']);
    // Another session of the same team is not stopped.
    const other = await team.session('other').run('go');
    expect(other.stopReason).toBe('Maximum number of turns 10 reached.');
  });

  it('uses "External termination requested" when stop() is given no reason', async () => {
    const team = new RoundRobinGroupChat([counter('a')], { maxTurns: 5 });
    const session = team.session('s');
    session.stop();
    const result = await session.run('go');
    expect(result.stopReason).toBe('External termination requested');
  });
});

describe('bounded memory (API.md §14)', () => {
  it('keeps serving sessions beyond sessionCacheSize: evicted ones reload from the store', async () => {
    const store = new MemoryCheckpointStore();
    const workflow = new HandoffBuilder({ name: 'desk', participants: [counter('helper')] })
      .coordinator('helper')
      .withCheckpointing(store, { sessionCacheSize: 2 })
      .build();
    for (let i = 0; i < 6; i++) await workflow.session(`s${i}`).run(`hello ${i}`);
    for (let i = 0; i < 6; i++) {
      const again = await workflow.session(`s${i}`).run(`again ${i}`);
      expect(again.status).toBe('awaiting_input');
      const thread = texts(await workflow.session(`s${i}`).messages());
      expect(thread.filter((t) => t.startsWith('user: '))).toEqual([
        `user: hello ${i}`,
        `user: again ${i}`,
      ]);
    }
  });

  it('forgets a session without a store only on dispose()', async () => {
    const team = new RoundRobinGroupChat([counter('a')], { maxTurns: 1 });
    await team.session('kept').run('one');
    expect(texts(await team.session('kept').messages())).toEqual(['user: one', 'a: a 1']);
    await team.session('kept').dispose();
    expect(await team.session('kept').messages()).toEqual([]);
  });
});

describe('teams with a checkpoint store (API.md §14, §7)', () => {
  const teams = {
    RoundRobinGroupChat: (store: CheckpointStore) =>
      new RoundRobinGroupChat([counter('a'), counter('b')], {
        maxTurns: 2,
        checkpointStore: store,
      }),
    SelectorGroupChat: (store: CheckpointStore) =>
      new SelectorGroupChat([counter('a'), counter('b')], {
        maxTurns: 2,
        selectorFunc: (messages) => (messages.length % 2 === 1 ? 'a' : 'b'),
        checkpointStore: store,
      }),
    Swarm: (store: CheckpointStore) =>
      new Swarm([counter('a'), counter('b')], { maxTurns: 2, checkpointStore: store }),
  };
  const stores = { memory: openMemory, file: openFile, postgres: openPostgres, redis: openRedis };

  for (const [storeName, open] of Object.entries(stores)) {
    for (const [kind, make] of Object.entries(teams)) {
      it(`${kind} over the ${storeName} store: resumes in another process's object, lists its steps and forks`, async (ctx) => {
        const fixture = await open();
        if (fixture === undefined) return ctx.skip(`${storeName} is not reachable`);
        try {
          const first = await make(fixture.a).session('s').run('go');
          expect(first.status).toBe('terminated');
          expect(first.stopReason).toBe('Maximum number of turns 2 reached.');
          // "Another process": a new team object on a second store over the same data.
          const later = make(fixture.b);
          expect(await later.session('s').messages()).toEqual(first.messages);
          const steps = await later.session('s').checkpoints();
          expect(steps.map((c) => c.step)).toEqual(steps.map((_, i) => i + 1));
          const input = steps.find((c) => c.event === 'user_input')?.step as number;
          expect(input).toBeGreaterThan(0);
          const fork = later.session('f', { from: { session: 's', step: input } });
          expect(texts(await fork.messages())).toEqual(['user: go']);
          const resumed = await later.session('s').run();
          expect(resumed.status).toBe('terminated');
          expect(texts(await later.session('s').messages()).slice(0, 3)).toEqual(
            texts(first.messages),
          );
        } finally {
          await fixture.close();
        }
      });
    }
  }

  it('rejects a second concurrent run through another team object with SessionBusyError', async () => {
    const store = new MemoryCheckpointStore();
    const { agent: slow, started, release } = gatedAgent('done');
    const one = new RoundRobinGroupChat([slow], { maxTurns: 1, checkpointStore: store });
    const two = new RoundRobinGroupChat([slow], { maxTurns: 1, checkpointStore: store });
    const running = one.session('s').run('go');
    await started;
    await expect(two.session('s').run('also')).rejects.toThrow(SessionBusyError);
    release();
    expect((await running).stopReason).toBe('Maximum number of turns 1 reached.');
  });
});

describe('a lost store stops the run (API.md §14)', () => {
  it('rejects with CheckpointError before the next model call and commits nothing after', async () => {
    class FlakyStore extends MemoryCheckpointStore {
      broken = false;
      override async append(...args: Parameters<MemoryCheckpointStore['append']>) {
        if (this.broken) throw new Error('store unreachable');
        return super.append(...args);
      }
      override async acquireLease(...args: Parameters<MemoryCheckpointStore['acquireLease']>) {
        if (this.broken) throw new Error('store unreachable');
        return super.acquireLease(...args);
      }
      override async leaseHolder(...args: Parameters<MemoryCheckpointStore['leaseHolder']>) {
        if (this.broken) throw new Error('store unreachable');
        return super.leaseHolder(...args);
      }
    }
    const store = new FlakyStore();
    const client = new ScriptedChatClient((_request, i) => {
      if (i === 0) store.broken = true;
      return { content: `answer ${i + 1}` };
    });
    const team = new RoundRobinGroupChat([new Agent({ name: 'a', client })], {
      maxTurns: 5,
      checkpointStore: store,
    });
    await expect(team.session('s').run('go')).rejects.toThrow(CheckpointError);
    expect(client.calls.length).toBe(1);
  });
});
