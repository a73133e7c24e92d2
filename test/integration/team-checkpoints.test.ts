import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { AgentContext, AgentResponse, ChatAgent } from '../../src/agents/chat-agent.js';
import type { CheckpointStore } from '../../src/checkpoint/checkpoint-store.js';
import { SessionBusyError } from '../../src/errors.js';
import {
  HandoffTermination,
  handoffMessage,
  RoundRobinGroupChat,
  SelectorGroupChat,
  Swarm,
  textMessage,
} from '../../src/index.js';
import type { AgentMessage } from '../../src/messages/message.js';
import type { StoreFixture } from '../contracts/checkpoint-store.contract.js';
import { FakeAgent } from '../support/fake-agent.js';
import {
  type OpenStores,
  openFile,
  openMemory,
  openPostgres,
  openRedis,
} from '../support/store-fixtures.js';

/** An agent that says its name and how often it has spoken in this process's session. */
function talker(name: string, before?: () => Promise<void>): ChatAgent {
  const counts = new Map<string, number>();
  return {
    name,
    description: `${name} agent`,
    async respond(ctx: AgentContext): Promise<AgentResponse> {
      await before?.();
      const n = (counts.get(ctx.sessionId) ?? 0) + 1;
      counts.set(ctx.sessionId, n);
      return { chatMessage: textMessage({ source: name, content: `${name} ${n}` }) };
    },
  };
}

const speakers = (messages: readonly AgentMessage[]) => messages.map((m) => m.source);

function describeTeamCheckpoints(storeName: string, open: OpenStores): void {
  describe(`teams with a checkpointStore (${storeName})`, () => {
    let fixture: StoreFixture | undefined;
    beforeAll(async () => {
      fixture = await open();
    });
    afterAll(async () => {
      await fixture?.close();
    });
    const stores = (): { a: CheckpointStore; b: CheckpointStore } => {
      if (fixture === undefined) throw new Error('store fixture missing');
      return fixture;
    };
    const roundRobin = (store: CheckpointStore, before?: () => Promise<void>) =>
      new RoundRobinGroupChat([talker('a', before), talker('b'), talker('c')], {
        maxTurns: 2,
        checkpointStore: store,
      });

    it('RoundRobinGroupChat resumes in another process with the next speaker, lists its steps and forks', async (ctx) => {
      if (fixture === undefined) return ctx.skip();
      const first = roundRobin(stores().a);
      await first.session('rr').run('go');

      const second = roundRobin(stores().b);
      const resumed = await second.session('rr').run();
      const fork = second.session('rr-fork', { from: { session: 'rr', step: 2 } });

      expect(speakers(resumed.messages)).toEqual(['c', 'a']);
      expect(speakers(await second.session('rr').messages())).toEqual(['user', 'a', 'b', 'c', 'a']);
      expect((await second.session('rr').checkpoints()).map((c) => [c.step, c.event])).toEqual([
        [1, 'user_input'],
        [2, 'agent_response:a'],
        [3, 'agent_response:b'],
        [4, 'stop'],
        [5, 'resume'],
        [6, 'agent_response:c'],
        [7, 'agent_response:a'],
        [8, 'stop'],
      ]);
      expect(speakers(await fork.messages())).toEqual(['user', 'a']);
      // The fork keeps the turn counter of step 2: one turn of the two is left.
      expect(speakers((await fork.run()).messages)).toEqual(['b']);
      expect(await first.session('rr').info()).toEqual({ status: 'terminated', step: 8 });
    });

    it('rejects a second run of one session from another process with SessionBusyError', async (ctx) => {
      if (fixture === undefined) return ctx.skip();
      let release = () => {};
      let entered = () => {};
      const inside = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const first = roundRobin(stores().a, async () => {
        entered();
        await held;
      });
      const running = first.session('busy').run('go');
      await inside;

      const second = roundRobin(stores().b);
      const refused = await second
        .session('busy')
        .run('again')
        .catch((error: unknown) => error);
      const during = await second.session('busy').info();
      release();
      const done = await running;

      expect(refused).toBeInstanceOf(SessionBusyError);
      expect(during.status).toEqual('running');
      expect(speakers(done.messages)).toEqual(['user', 'a', 'b']);
      expect(speakers(await second.session('busy').messages())).toEqual(['user', 'a', 'b']);
    });

    it('Swarm resumes a handoff to the user in another process', async (ctx) => {
      if (fixture === undefined) return ctx.skip();
      const swarm = (store: CheckpointStore, turns: ConstructorParameters<typeof FakeAgent>[1]) =>
        new Swarm([new FakeAgent('agent', turns), new FakeAgent('refunder', [])], {
          terminationCondition: new HandoffTermination('user'),
          maxTurns: 1,
          checkpointStore: store,
        });
      const first = await swarm(stores().a, [{ handoff: 'user' }])
        .session('sw')
        .run('Refund me');

      const second = swarm(stores().b, [{ say: 'Done: BA-1 refunded.' }]);
      const resumed = await second
        .session('sw')
        .run(handoffMessage({ source: 'user', target: 'agent', content: 'It is BA-1' }));

      expect([first.status, first.stopReason]).toEqual([
        'terminated',
        'Handoff to user from agent detected.',
      ]);
      expect(speakers(resumed.messages)).toEqual(['user', 'agent']);
      expect(resumed.messages.at(-1)).toMatchObject({ content: 'Done: BA-1 refunded.' });
      expect((await second.session('sw').checkpoints()).map((c) => c.event)).toEqual([
        'user_input',
        'agent_response:agent',
        'user_input',
        'agent_response:agent',
        'stop',
      ]);
    });

    it('SelectorGroupChat resumes in another process from the stored thread', async (ctx) => {
      if (fixture === undefined) return ctx.skip();
      const selector = (store: CheckpointStore) =>
        new SelectorGroupChat([talker('planner'), talker('analyst')], {
          // The speaker who has said least so far, planner first.
          selectorFunc: (messages) =>
            messages.filter((m) => m.source === 'planner').length <=
            messages.filter((m) => m.source === 'analyst').length
              ? 'planner'
              : 'analyst',
          maxTurns: 1,
          checkpointStore: store,
        });
      await selector(stores().a).session('sel').run('Plan it');

      const resumed = await selector(stores().b).session('sel').run('Go on');

      expect(speakers(resumed.messages)).toEqual(['user', 'analyst']);
      expect(speakers(await selector(stores().a).session('sel').messages())).toEqual([
        'user',
        'planner',
        'user',
        'analyst',
      ]);
    });
  });
}

describeTeamCheckpoints('MemoryCheckpointStore', openMemory);
describeTeamCheckpoints('FileCheckpointStore', openFile);
describeTeamCheckpoints('PostgresCheckpointStore', openPostgres);
describeTeamCheckpoints('RedisCheckpointStore', openRedis);
