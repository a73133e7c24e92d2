import { describe, expect, it } from 'vitest';

import {
  type CheckpointStore,
  HandoffBuilder,
  MemoryCheckpointStore,
  SessionBusyError,
  textMessage,
} from '../../src/index.js';
import { FakeAgent, type FakeTurn, transcript } from '../support/fake-agent.js';

/** A fresh workflow object over `store`, as another process would build it. */
function desk(store: CheckpointStore, triage: FakeTurn[]) {
  const agents = [new FakeAgent('triage', triage, []), new FakeAgent('billing', [], [])];
  return new HandoffBuilder({ name: 'support', participants: agents })
    .coordinator('triage')
    .withCheckpointing(store)
    .build();
}

/** A turn that answers only when `release()` is called; `started` resolves when it begins. */
function gatedTurn() {
  let release: () => void = () => {};
  let started: () => void = () => {};
  const turnStarted = new Promise<void>((resolve) => (started = resolve));
  const turn: FakeTurn = () =>
    new Promise((resolve) => {
      release = () => resolve({ chatMessage: textMessage({ source: 'triage', content: 'done' }) });
      started();
    });
  return { turn, turnStarted, release: () => release() };
}

describe('session.delete()', () => {
  it('refuses while the session runs here or elsewhere, then deletes it whole', async () => {
    const store = new MemoryCheckpointStore();
    const gate = gatedTurn();
    const here = desk(store, [gate.turn]);
    const running = here.session('t-1').run('one');
    await gate.turnStarted;

    const busyHere = await here
      .session('t-1')
      .delete()
      .catch((e: unknown) => e);
    expect(busyHere).toBeInstanceOf(SessionBusyError);
    expect((busyHere as Error).message).toBe(
      'Session "t-1" is already running (delete() waits until it is idle). Wait for its ' +
        'current run to finish or abort it before running it again.',
    );
    const elsewhere = desk(store, []);
    const busyElsewhere = await elsewhere
      .session('t-1')
      .delete()
      .catch((e: unknown) => e);
    expect(busyElsewhere).toBeInstanceOf(SessionBusyError);
    expect((busyElsewhere as SessionBusyError).leaseExpiresBy).toBeInstanceOf(Date);

    gate.release();
    await running;
    expect((await store.read('t-1')).length).toBeGreaterThan(0);

    await elsewhere.session('t-1').delete();
    expect(await store.read('t-1', { from: 'start' })).toEqual([]);
    expect(await store.leaseHolder('t-1')).toBeNull();
    expect(await store.list()).toEqual({ sessions: [] });
    const fresh = desk(store, []).session('t-1');
    expect(await fresh.messages()).toEqual([]);
    expect((await fresh.info()).step).toBe(0);
    expect(await elsewhere.session('t-1').messages()).toEqual([]);
  });

  it('gives every workflow object that had the session loaded a new one', async () => {
    const store = new MemoryCheckpointStore();
    const here = desk(store, [{ say: 'one' }, { say: 'two' }]);
    await here.session('t-4').run('hi');
    await desk(store, []).session('t-4').delete();
    expect(await here.session('t-4').messages()).toEqual([]);
    expect(await here.session('t-4').info()).toEqual({ status: 'idle', step: 0 });
    await here.session('t-4').run('again');
    expect(transcript(await here.session('t-4').messages())).toEqual([
      'TextMessage(user): again',
      'TextMessage(triage): two',
      'UserInputRequestedEvent(triage): two',
    ]);
    expect((await store.read('t-4', { from: 'start' }))[0]?.snapshot).toBe(true);
  });

  it('gives a workflow object that had the session loaded the new one made since, as long as the old one', async () => {
    const store = new MemoryCheckpointStore();
    const here = desk(store, [{ say: 'old answer' }, { say: 'here answer' }]);
    await here.session('t-5').run('old secret');
    const step = (await here.session('t-5').info()).step;
    // Another process deletes it and makes it again, to the step this one knew.
    const there = desk(store, [{ say: 'new answer' }]);
    await there.session('t-5').delete();
    await there.session('t-5').run('new question');
    expect((await there.session('t-5').info()).step).toBe(step);
    await here.session('t-5').run('here question');
    const expected = [
      'TextMessage(user): new question',
      'TextMessage(triage): new answer',
      'UserInputRequestedEvent(triage): new answer',
      'TextMessage(user): here question',
      'TextMessage(triage): here answer',
      'UserInputRequestedEvent(triage): here answer',
    ];
    expect(transcript(await here.session('t-5').messages())).toEqual(expected);
    expect(transcript(await desk(store, []).session('t-5').messages())).toEqual(expected);
  });

  it('drops the session from the workflow that deletes it, so the id starts afresh', async () => {
    const store = new MemoryCheckpointStore();
    const workflow = desk(store, [{ say: 'first answer' }, { say: 'second answer' }]);
    const session = workflow.session('t-2');
    await session.run('hello');
    expect((await session.info()).step).toBeGreaterThan(0);

    await session.delete();
    expect(await session.messages()).toEqual([]);
    expect(await workflow.session('t-2').info()).toEqual({ status: 'idle', step: 0 });

    await workflow.session('t-2').run('again');
    expect(transcript(await session.messages())).toEqual([
      'TextMessage(user): again',
      'TextMessage(triage): second answer',
      'UserInputRequestedEvent(triage): second answer',
    ]);
    expect((await store.list()).sessions.map((s) => s.id)).toEqual(['t-2']);
  });

  it('deletes a session of a workflow without a store from memory', async () => {
    const agents = [new FakeAgent('triage', [{ say: 'hi' }], []), new FakeAgent('billing', [], [])];
    const workflow = new HandoffBuilder({ name: 'support', participants: agents })
      .coordinator('triage')
      .build();
    await workflow.session('t-3').run('hello');
    await workflow.session('t-3').delete();
    expect(await workflow.session('t-3').messages()).toEqual([]);
  });
});
