import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  type CheckpointStore,
  checkSessions,
  ConfigError,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  tool,
} from '../../src/index.js';
import type { StoreFixture } from '../contracts/checkpoint-store.contract.js';
import {
  openFile,
  openMemory,
  openPostgres,
  openRedis,
  type OpenStores,
} from '../support/store-fixtures.js';

const V1 = z.object({ customer: z.string().nullable() });
const V2 = z.object({
  customer: z.object({ name: z.string() }).nullable(),
  priority: z.enum(['low', 'high']),
});

const refund = tool({
  name: 'refund',
  description: 'Refunds a charge.',
  parameters: z.object({ amount: z.number() }),
  needsApproval: true,
  execute: ({ amount }) => `refunded ${amount}`,
});

/** A desk as one build has it: version 1 or 2 of the state, with or without the refund tool. */
function desk(
  store: CheckpointStore,
  options: {
    version: 1 | 2;
    replies?: string[];
    migrate?: (old: unknown, from: number) => unknown;
    refund?: boolean;
    billingScript?: ReturnType<typeof scriptedText>[];
  },
) {
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient((options.replies ?? []).map((r) => scriptedText(r))),
  });
  const billing = new Agent({
    name: 'billing',
    client: new ScriptedChatClient(options.billingScript ?? []),
    tools: options.refund === false ? [] : [refund],
  });
  const state =
    options.version === 1
      ? { schema: V1, initial: { customer: null } }
      : {
          schema: V2,
          initial: { customer: null, priority: 'low' as const },
          version: 2,
          ...(options.migrate === undefined ? {} : { migrate: options.migrate }),
        };
  return new HandoffBuilder({ name: 'desk', participants: [triage, billing], state })
    .coordinator('triage')
    .withCheckpointing(store)
    .build();
}

/** A desk whose billing agent asks to refund (the call awaits approval). */
function refundDesk(store: CheckpointStore) {
  return new HandoffBuilder({
    name: 'desk',
    state: { schema: V1, initial: { customer: null } },
    participants: [
      new Agent({
        name: 'triage',
        client: new ScriptedChatClient([scriptedToolCall('handoff_to_billing')]),
      }),
      new Agent({
        name: 'billing',
        client: new ScriptedChatClient([scriptedToolCall('refund', { amount: 5 })]),
        tools: [refund],
      }),
    ],
  })
    .coordinator('triage')
    .withCheckpointing(store)
    .build();
}

const migrations: [unknown, number][] = [];
const migrate = (old: unknown, from: number) => {
  migrations.push([old, from]);
  const customer = (old as { customer: string | null }).customer;
  return { customer: customer === null ? null : { name: customer }, priority: 'high' };
};

/** A session of version 1 paused for input, with the customer known. */
async function pausedV1(store: CheckpointStore, id: string): Promise<number> {
  const v1 = desk(store, { version: 1, replies: ['Who are you?'] });
  await v1.session(id).updateState((draft) => {
    draft.customer = 'Ada';
  });
  await v1.session(id).run('hello');
  return (await store.read(id, { from: 'start' })).length;
}

const rawOf = async (store: CheckpointStore, id: string) =>
  (await store.read(id, { from: 'start' })).map((r) => r.data);

describe.each<[string, OpenStores]>([
  ['memory', openMemory],
  ['file', openFile],
  ['postgres', openPostgres],
  ['redis', openRedis],
])('workflow versions on the %s store', (_name, open) => {
  let stores: StoreFixture | undefined;
  beforeAll(async () => {
    stores = await open();
  });
  afterAll(async () => {
    await stores?.close();
  });
  const need = (ctx: { skip: () => void }): StoreFixture => {
    if (stores === undefined) ctx.skip();
    return stores as StoreFixture;
  };

  it('migrates a version 1 state when it loads, and commits it with the next step', async (ctx) => {
    const { a, b } = need(ctx);
    const id = `migrate-${Math.random().toString(36).slice(2)}`;
    const before = await pausedV1(a, id);
    migrations.length = 0;

    const v2 = desk(b, { version: 2, migrate, replies: ['Noted, Ada.'] });
    expect(await v2.session(id).state()).toEqual({ customer: { name: 'Ada' }, priority: 'high' });
    expect(migrations).toEqual([[{ customer: 'Ada' }, 1]]);
    // Reading wrote nothing.
    expect((await a.read(id, { from: 'start' })).length).toBe(before);

    const result = await v2.session(id).run('I was charged twice');
    expect(result.pendingRequest?.prompt).toBe('Noted, Ada.');
    // Another process of the new build reads the migrated state from the log, migrating nothing.
    migrations.length = 0;
    const again = desk(a, { version: 2, migrate });
    expect(await again.session(id).state()).toEqual({
      customer: { name: 'Ada' },
      priority: 'high',
    });
    expect(migrations).toEqual([]);
    const events = (await again.session(id).checkpoints()).map((c) => c.event);
    expect(events.slice(before)).toEqual(['user_input', 'agent_response:triage']);
  });

  it('refuses a migrate that returns an invalid state, naming the field, and touches nothing', async (ctx) => {
    const { a, b } = need(ctx);
    const id = `bad-migrate-${Math.random().toString(36).slice(2)}`;
    await pausedV1(a, id);
    const stored = await rawOf(a, id);
    const v2 = desk(b, {
      version: 2,
      migrate: () => ({ customer: { name: 'Ada' }, priority: 'urgent' }),
      replies: ['unused'],
    });
    const error = await v2
      .session(id)
      .run('hello again')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).path).toBe('state.priority');
    expect((error as Error).message).toMatch(
      new RegExp(
        `^Session "${id}" cannot be taken over by this workflow: state\\.migrate\\(old, 1\\) returned a state it refuses: the conversation state is invalid at priority: .*Make migrate return a state the schema accepts; the stored session is untouched\\.$`,
      ),
    );
    expect(await rawOf(a, id)).toEqual(stored);
  });

  it('refuses a session paused on a tool the new build no longer has', async (ctx) => {
    const { a, b } = need(ctx);
    const id = `gone-tool-${Math.random().toString(36).slice(2)}`;
    const v1 = refundDesk(a);
    const paused = await v1.session(id).run('refund me');
    expect(paused.pendingRequest?.kind).toBe('approval');
    const stored = await rawOf(a, id);
    const error = await desk(b, { version: 1, refund: false })
      .session(id)
      .info()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).path).toBe('pendingRequest.calls');
    expect((error as Error).message).toBe(
      `Session "${id}" cannot be taken over by this workflow: its pending request names tool "refund" of agent "billing", which this workflow does not have. Run it with the workflow that wrote it until it ends, or delete it.`,
    );
    expect(await rawOf(a, id)).toEqual(stored);
  });
});

describe('checkSessions()', () => {
  it('names exactly the sessions a build cannot take over, and why, writing nothing', async () => {
    const store = new MemoryCheckpointStore();
    await pausedV1(store, 'input-1');
    await refundDesk(store).session('approval-1').run('refund me');
    await pausedV1(store, 'input-2');
    const before = await Promise.all(
      ['input-1', 'approval-1', 'input-2'].map((id) => rawOf(store, id)),
    );

    const compatible = await checkSessions(desk(store, { version: 2, migrate }), store);
    expect(compatible.sort((x, y) => x.sessionId.localeCompare(y.sessionId))).toEqual([
      { sessionId: 'approval-1', ok: true },
      { sessionId: 'input-1', ok: true },
      { sessionId: 'input-2', ok: true },
    ]);
    const withoutRefund = await checkSessions(desk(store, { version: 1, refund: false }), store);
    expect(withoutRefund.filter((s) => !s.ok)).toEqual([
      {
        sessionId: 'approval-1',
        ok: false,
        reason:
          'Session "approval-1" cannot be taken over by this workflow: its pending request names tool "refund" of agent "billing", which this workflow does not have. Run it with the workflow that wrote it until it ends, or delete it.',
      },
    ]);
    expect(withoutRefund).toHaveLength(3);
    expect(
      await Promise.all(['input-1', 'approval-1', 'input-2'].map((id) => rawOf(store, id))),
    ).toEqual(before);
  });

  it('refuses what is no workflow', async () => {
    await expect(
      checkSessions({} as Parameters<typeof checkSessions>[0], new MemoryCheckpointStore()),
    ).rejects.toThrow(
      'checkSessions(workflow, store): workflow must be a built workflow or team (HandoffBuilder.build(), a team, GraphBuilder.build()).',
    );
  });
});

describe('the state option: version and migrate', () => {
  it.for<[string, Record<string, unknown>, string, string]>([
    [
      'a version that is no positive integer',
      { version: 0 },
      'state.version',
      'HandoffBuilder "desk": state.version must be a positive integer, got 0.',
    ],
    [
      'a migrate that is no function',
      { version: 2, migrate: 'v1 to v2' },
      'state.migrate',
      'HandoffBuilder "desk": state.migrate must be a function (old, from) => newState, got string.',
    ],
  ])('refuses %s at build(), naming the field', ([, extra, path, message]) => {
    const build = () =>
      new HandoffBuilder({
        name: 'desk',
        participants: [new Agent({ name: 'triage', client: new ScriptedChatClient([]) })],
        state: { schema: V1, initial: { customer: null }, ...extra },
      }).build();
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(message);
    try {
      build();
    } catch (error) {
      expect((error as ConfigError).path).toBe(path);
    }
  });

  it('leaves a workflow without a version at version 1, and changes the fingerprint with it', () => {
    const desk1 = desk(new MemoryCheckpointStore(), { version: 1 });
    const again = desk(new MemoryCheckpointStore(), { version: 1 });
    const desk2 = desk(new MemoryCheckpointStore(), { version: 2, migrate });
    expect(desk1.fingerprint).toBe(again.fingerprint);
    expect(desk2.fingerprint).not.toBe(desk1.fingerprint);
  });

  it('leaves instructions and models out of the fingerprint, and tools in', () => {
    const build = (instructions: string, tools: (typeof refund)[]) =>
      new HandoffBuilder({
        name: 'desk',
        participants: [
          new Agent({ name: 'triage', instructions, client: new ScriptedChatClient([]), tools }),
        ],
      })
        .coordinator('triage')
        .build().fingerprint;
    expect(build('Be brief.', [])).toBe(build('Be thorough and kind.', []));
    expect(build('Be brief.', [refund])).not.toBe(build('Be brief.', []));
  });
});
