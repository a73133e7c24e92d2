import { crc32 } from 'node:zlib';

import { describe, expect, it } from 'vitest';

import {
  Agent,
  CheckpointError,
  type CheckpointedSession,
  type CheckpointRecord,
  GraphBuilder,
  HandoffBuilder,
  MaxMessageTermination,
  MemoryCheckpointStore,
  RoundRobinGroupChat,
  ScriptedChatClient,
  SelectorGroupChat,
  type SessionOptions,
  scriptedText,
  scriptedToolCall,
  TextMentionTermination,
  textMessage,
} from '../../src/index.js';

// Issue 19: step records hold less than the state (format 3 writes messages in a compact form).
// Every step of four orchestrations is replayed from the store and compared with the state the
// running process had at that step.

const NAMES = ['triage', 'billing', 'technical', 'account'] as const;
const NEXT: Readonly<Record<string, string>> = {
  triage: 'billing',
  billing: 'technical',
  technical: 'account',
};

/** A model that answers with text, with token usage on every other answer. */
const texter = (name: string) =>
  new ScriptedChatClient((_request, i) =>
    scriptedText(
      `${name} answer ${i}: "quoted", \\ back, ünïcode`,
      i % 2 === 0
        ? { promptTokens: 0, completionTokens: 0 }
        : { promptTokens: 17, completionTokens: i },
    ),
  );

/** A model that hands off to the next agent of the relay; the last one answers. */
const relayer = (name: string) =>
  new ScriptedChatClient((_request, i) => {
    const next = NEXT[name];
    return next === undefined
      ? scriptedText(`${name} is done (${i}).`)
      : scriptedToolCall(`handoff_to_${next}`, {}, `${name}-${i}`);
  });

const agents = (client: (name: string) => ScriptedChatClient) =>
  NAMES.map(
    (name) => new Agent({ name, description: `The ${name} desk.`, client: client(name) }),
  ) as [Agent, Agent, Agent, Agent];

const condition = () => new MaxMessageTermination(5).or(new TextMentionTermination('NEVER'));

/** What the test needs of a workflow or team: sessions, forked ones too. */
interface Desk {
  session(id: string, options?: SessionOptions): CheckpointedSession;
}

const desks: Readonly<Record<string, (store: MemoryCheckpointStore) => Desk>> = {
  relay: (store) => {
    const [triage, billing, technical, account] = agents(relayer);
    return new HandoffBuilder({
      name: 'relay',
      participants: [triage, billing, technical, account],
    })
      .coordinator(triage)
      .addHandoff(billing, [technical])
      .addHandoff(technical, [account])
      .withCheckpointing(store)
      .build();
  },
  graph: (store) => {
    const [triage, billing, technical, account] = agents(texter);
    return new GraphBuilder({ name: 'graph' })
      .addNode(triage)
      .addNode(billing)
      .addNode(technical)
      .addNode(account)
      .addEdge(triage, [billing, technical])
      .addEdge([billing, technical], account)
      .withCheckpointing(store)
      .build();
  },
  team: (store) =>
    new RoundRobinGroupChat(agents(texter), {
      name: 'team',
      terminationCondition: condition(),
      checkpointStore: store,
    }),
  selector: (store) =>
    new SelectorGroupChat(agents(texter), {
      name: 'selector',
      selectorFunc: (messages) => NEXT[messages.at(-1)?.source ?? ''] ?? 'triage',
      terminationCondition: condition(),
      checkpointStore: store,
    }),
};

/** A memory store that lets a test look at the session before each record is appended. */
class WatchedStore extends MemoryCheckpointStore {
  beforeAppend: (sessionId: string, record: CheckpointRecord) => Promise<void> = async () => {};

  override async append(sessionId: string, record: CheckpointRecord): Promise<boolean> {
    await this.beforeAppend(sessionId, record);
    return super.append(sessionId, record);
  }
}

const ID = 'watched';

describe.each(Object.keys(desks))('format 3 step records (%s)', (name) => {
  it('replay every step to the state the running process had', async () => {
    const build = desks[name] as (store: MemoryCheckpointStore) => Desk;
    const store = new WatchedStore();
    const session = build(store).session(ID);
    const replaying = build(store);
    let compared = 0;
    const compare = async (step: number) => {
      const running = await session.saveState();
      const fork = replaying.session(`${ID}-at-${step}`, { from: { session: ID, step } });
      expect(await fork.saveState()).toStrictEqual(running);
      expect((await fork.info()).step).toBe(step);
      compared++;
    };
    // Before step n is appended, the running process holds the state of step n - 1.
    store.beforeAppend = async (sessionId, record) => {
      if (sessionId === ID && record.step > 1) await compare(record.step - 1);
    };
    await session.run(
      textMessage({
        source: 'user',
        content: 'First question',
        metadata: { ticket: 7, tags: ['a', 'é'], nested: { deep: [1, null, { k: true }] } },
      }),
    );
    await session.run('Second question');
    await session.run('Third question');
    store.beforeAppend = async () => {};
    const { step } = await session.info();
    await compare(step);
    expect(compared).toBe(step);
    const records = await store.read(ID, { from: 'start' });
    expect(records.slice(1).every((r) => r.data.slice(8).startsWith('[3,'))).toBe(true);
    // A fresh process loads the same state, and lists the same steps.
    const again = build(store).session(ID);
    expect(await again.saveState()).toStrictEqual(await session.saveState());
    expect(await again.checkpoints()).toEqual(await session.checkpoints());
  });
});

describe('a damaged format 3 step record', () => {
  const sealed = (step: number, body: string) =>
    crc32(`${ID}\n${step}\n${body}`).toString(16).padStart(8, '0') + body;

  it.each([
    ['a message that is not a list', (r: unknown[]) => r.with(4, [{ type: 'TextMessage' }])],
    ['a message of an unknown type number', (r: unknown[]) => r.with(4, [[0, 99]])],
    ['a format version from the future', (r: unknown[]) => r.with(0, 4)],
    ['a step number of another step', (r: unknown[]) => r.with(1, 7)],
    ['no event', (r: unknown[]) => r.slice(0, 3)],
  ])('with %s (sealed again) is a CheckpointError', async (_what, edit) => {
    const store = new MemoryCheckpointStore();
    await (desks.team as (s: MemoryCheckpointStore) => Desk)(store).session(ID).run('Hi');
    const records = await store.read(ID, { from: 'start' });
    const second = records[1] as CheckpointRecord;
    const body = JSON.stringify(edit(JSON.parse(second.data.slice(8)) as unknown[]));
    const damaged = new MemoryCheckpointStore();
    for (const r of records) {
      await damaged.append(ID, r === second ? { ...r, data: sealed(r.step, body) } : r);
    }
    const error = await (desks.team as (s: MemoryCheckpointStore) => Desk)(damaged)
      .session(ID)
      .messages()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as CheckpointError).step).toBe(2);
    expect((error as Error).message).toMatchSnapshot();
  });
});
