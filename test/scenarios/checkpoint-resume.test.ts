import { describe, expect, it } from 'vitest';

import {
  CheckpointError,
  type CheckpointRecord,
  type CheckpointStore,
  ConfigError,
  HandoffBuilder,
  MaxMessageTermination,
  MemoryCheckpointStore,
  SessionBusyError,
  textMessage,
} from '../../src/index.js';
import { FakeAgent, type FakeTurn, type SeenTurn, transcript } from '../support/fake-agent.js';

/** A fresh workflow object over `store`, as another process would build it. */
function desk(
  store: CheckpointStore,
  script: { triage?: FakeTurn[]; billing?: FakeTurn[]; tech?: FakeTurn[] },
  options: { edges?: boolean; maxMessages?: number; billing?: boolean } = {},
) {
  const log: SeenTurn[] = [];
  const agents = [
    new FakeAgent('triage', script.triage ?? [], log),
    ...(options.billing === false ? [] : [new FakeAgent('billing', script.billing ?? [], log)]),
    new FakeAgent('tech', script.tech ?? [], log),
  ];
  let builder = new HandoffBuilder({ name: 'support', participants: agents })
    .coordinator('triage')
    .withCheckpointing(store);
  if (options.edges !== false && options.billing !== false) {
    builder = builder.addHandoff('billing', ['tech']);
  }
  if (options.maxMessages !== undefined) {
    builder = builder.withTerminationCondition(new MaxMessageTermination(options.maxMessages));
  }
  return { log, workflow: builder.build() };
}

describe('checkpointed sessions', () => {
  it('resume in another workflow object with the pending request, re-running nothing', async () => {
    const store = new MemoryCheckpointStore();
    const first = desk(store, {
      triage: [{ handoff: 'billing' }],
      billing: [{ say: 'Which invoice?' }],
    });
    const paused = await first.workflow.session('t-1').run('My invoice is wrong');

    const second = desk(store, {
      triage: [{ handoff: 'billing' }],
      billing: [{ say: 'Refunded.' }],
    });
    const session = second.workflow.session('t-1');
    expect(await session.info()).toEqual({
      status: 'awaiting_input',
      pendingRequest: paused.pendingRequest,
      step: 3,
    });
    expect(await session.messages()).toEqual(await first.workflow.session('t-1').messages());
    const resumed = await session.run('INV-7');
    expect(resumed.pendingRequest?.prompt).toBe('Refunded.');
    expect(second.log.map((t) => t.agent)).toEqual(['triage', 'billing']);
    expect(transcript(await session.messages())).toHaveLength(12);
  });

  it('restores the termination condition state across processes', async () => {
    const store = new MemoryCheckpointStore();
    const a = desk(store, { triage: [{ say: 'Hello?' }] }, { maxMessages: 3 });
    await a.workflow.session('t-2').run('hi');
    const b = desk(store, { triage: [{ say: 'unused' }] }, { maxMessages: 3 });
    const result = await b.workflow.session('t-2').run('still there?');
    expect(result.stopReason).toBe(
      'Maximum number of messages 3 reached, current message count: 3',
    );
    expect(b.log).toEqual([]);
  });

  it('lists the step log and forks a new session from a past step', async () => {
    const store = new MemoryCheckpointStore();
    const { workflow } = desk(store, {
      triage: [{ handoff: 'billing' }, { handoff: 'billing' }, { handoff: 'billing' }],
      billing: [{ say: 'Which invoice?' }, { say: 'Refunded.' }, { say: 'Credited instead.' }],
    });
    await workflow.session('t-3').run('My invoice is wrong');
    await workflow.session('t-3').run('INV-7');
    const steps = await workflow.session('t-3').checkpoints();
    expect(steps.map((s) => [s.step, s.event])).toEqual([
      [1, 'user_input'],
      [2, 'agent_response:triage'],
      [3, 'agent_response:billing'],
      [4, 'user_input'],
      [5, 'agent_response:triage'],
      [6, 'agent_response:billing'],
    ]);
    expect(steps.every((s) => !Number.isNaN(Date.parse(s.at)))).toBe(true);

    const fork = workflow.session('t-3-fork', { from: { session: 't-3', step: 3 } });
    expect((await fork.info()).pendingRequest?.prompt).toBe('Which invoice?');
    const other = await fork.run('Please credit my account instead');
    expect(other.status).toBe('awaiting_input');
    expect((await fork.checkpoints()).map((s) => s.event)).toEqual([
      'fork:t-3@3',
      'user_input',
      'agent_response:triage',
      'agent_response:billing',
    ]);
    expect(transcript(await workflow.session('t-3').messages()).at(-2)).toBe(
      'TextMessage(billing): Refunded.',
    );
    expect(transcript(await fork.messages()).at(-2)).toBe(
      'TextMessage(billing): Credited instead.',
    );
  });

  it('refuses to fork from a step that does not exist or into a session that does', async () => {
    const store = new MemoryCheckpointStore();
    const { workflow } = desk(store, { triage: [{ say: 'Hello?' }] });
    await workflow.session('t-4').run('hi');
    await expect(
      workflow.session('f-1', { from: { session: 't-4', step: 9 } }).info(),
    ).rejects.toThrow(
      'Cannot fork from step 9 of session "t-4": the store has no such step. List the steps with session.checkpoints().',
    );
    await expect(
      desk(store, {})
        .workflow.session('t-4', { from: { session: 't-4', step: 1 } })
        .info(),
    ).rejects.toThrow(
      'Cannot fork into session "t-4": it already exists. Fork into a new session id.',
    );
  });

  it('takes over a session written by a workflow with a compatible change', async () => {
    const store = new MemoryCheckpointStore();
    const first = desk(store, { triage: [{ say: 'Hello?' }] });
    await first.workflow.session('t-5').run('hi');
    const other = desk(store, { triage: [{ say: 'Again?' }] }, { edges: false });
    expect(other.workflow.fingerprint).not.toBe(first.workflow.fingerprint);
    const result = await other.workflow.session('t-5').run('again');
    expect(result.pendingRequest?.prompt).toBe('Again?');
    // Its first record names it; the next ones need not (they follow it).
    const records = await store.read('t-5', { from: 'start' });
    expect(records.map((r) => r.data.includes(other.workflow.fingerprint))).toEqual([
      false,
      false,
      true,
      false,
    ]);
    // The new workflow's records are read back by it, and by the old one (a rollback).
    expect((await desk(store, {}, { edges: false }).workflow.session('t-5').info()).step).toBe(4);
    expect((await desk(store, {}).workflow.session('t-5').info()).step).toBe(4);
  });

  it('refuses a session whose pending request names an agent the workflow no longer has', async () => {
    const store = new MemoryCheckpointStore();
    await desk(store, { triage: [{ handoff: 'billing' }], billing: [{ say: 'Which invoice?' }] })
      .workflow.session('t-5b')
      .run('My invoice is wrong');
    const other = desk(store, {}, { billing: false });
    const error = await other.workflow
      .session('t-5b')
      .run('INV-7')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).path).toBe('pendingRequest.agent');
    expect((error as Error).message).toBe(
      'Session "t-5b" cannot be taken over by this workflow: its pending request names agent "billing", which this workflow does not have. Run it with the workflow that wrote it until it ends, or delete it.',
    );
    expect(other.log).toEqual([]);
    expect((await store.read('t-5b', { from: 'start' })).length).toBe(3);
  });

  it('turns a corrupt record into a CheckpointError naming the session and step', async () => {
    const store = new MemoryCheckpointStore();
    await desk(store, { triage: [{ say: 'Hello?' }] })
      .workflow.session('t-6')
      .run('hi');
    await store.append('t-6', {
      step: 3,
      snapshot: false,
      data: '{"v":1,"session":"t-6","step":3,',
    });
    const error = await desk(store, {})
      .workflow.session('t-6')
      .info()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointError);
    expect(error).toMatchObject({ sessionId: 't-6', step: 3 });
    expect((error as Error).message).toBe(
      'Checkpoint of session "t-6" at step 3 cannot be read: its checksum does not match (the record is corrupt, was edited, or belongs to another session or step). Restore the store from a backup or fork the session from an earlier step.',
    );
  });

  it('lets one of two workflow objects run a session; the other gets SessionBusyError', async () => {
    const store = new MemoryCheckpointStore();
    let release: () => void = () => {};
    let started: () => void = () => {};
    const turnStarted = new Promise<void>((resolve) => (started = resolve));
    const slow: FakeTurn = () =>
      new Promise((resolve) => {
        release = () =>
          resolve({ chatMessage: textMessage({ source: 'triage', content: 'done' }) });
        started();
      });
    const a = desk(store, { triage: [slow] });
    const b = desk(store, { triage: [{ say: 'never' }] });
    const running = a.workflow.session('t-7').run('one');
    await turnStarted;
    expect((await b.workflow.session('t-7').info()).status).toBe('running');
    await expect(b.workflow.session('t-7').run('two')).rejects.toBeInstanceOf(SessionBusyError);
    release();
    await running;
    expect(transcript(await b.workflow.session('t-7').messages())).toEqual([
      'TextMessage(user): one',
      'TextMessage(triage): done',
      'UserInputRequestedEvent(triage): done',
    ]);
    expect(b.log).toEqual([]);
  });

  it('loses the commit race, not messages, when leases are not enough', async () => {
    const inner = new MemoryCheckpointStore();
    // Grants every lease, as a store would to two processes whose clocks disagree.
    const leaky: CheckpointStore = {
      append: (id, r: CheckpointRecord) => inner.append(id, r),
      read: (id, o) => inner.read(id, o),
      acquireLease: async () => true,
      releaseLease: async () => {},
      leaseHolder: async () => null,
      delete: (id) => inner.delete(id),
      list: (options) => inner.list(options),
      deleteOlderThan: (date) => inner.deleteOlderThan(date),
      close: async () => {},
    };
    const a = desk(leaky, { triage: [{ say: 'from a' }] });
    const b = desk(leaky, { triage: [{ say: 'from b' }] });
    const results = await Promise.allSettled([
      a.workflow.session('t-8').run('hello'),
      b.workflow.session('t-8').run('hello'),
    ]);
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason).toBeInstanceOf(SessionBusyError);
    const thread = transcript(await desk(inner, {}).workflow.session('t-8').messages());
    expect(thread.filter((m) => m === 'TextMessage(user): hello')).toHaveLength(1);
    expect(thread).toHaveLength(3);
  });

  it('reports a session idle once the lease of a dead runner has expired', async () => {
    let now = 1_000;
    const store = new MemoryCheckpointStore({ clock: () => now });
    const { workflow } = desk(store, { triage: [{ say: 'Hello?' }] });
    await workflow.session('t-9').run('hi');
    // A process that died mid-run left its lease behind.
    await store.acquireLease('t-9', 'dead process', 3_000);
    expect((await workflow.session('t-9').info()).status).toBe('running');
    now += 3_001;
    expect((await workflow.session('t-9').info()).status).toBe('awaiting_input');
  });

  it('writes bytes per step in proportion to the step, not to the thread', async () => {
    const store = new MemoryCheckpointStore();
    const turns = 40;
    const { workflow } = desk(store, {
      triage: Array.from({ length: turns }, () => ({ say: 'x'.repeat(200) })),
    });
    const session = workflow.session('t-10');
    for (let i = 0; i < turns; i++) await session.run(`question ${String(i).padStart(3, '0')}`);
    const records = await store.read('t-10', { from: 'start' });
    const responses = records.filter((r) => r.data.includes(',"@triage",'));
    expect(responses).toHaveLength(turns);
    const early = responses[2]?.data.length ?? 0;
    const late = responses.at(-1)?.data.length ?? 0;
    expect(late).toBeLessThan(early * 1.1);
    const threadBytes = JSON.stringify(await session.messages()).length;
    const stored = records.reduce((sum, r) => sum + r.data.length, 0);
    expect(stored / threadBytes).toBeLessThan(2);
  });
});
