// Independent suite for API.md §19 with §18: a session whose agents have instructions as functions
// of the conversation state, and whose tools update it, is recorded and replays ok when nothing
// changed (with recorded tools, whose updates the replay must restore for the instructions to come
// out the same, and with live tools). Written from API.md alone.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  type CheckpointStore,
  HandoffBuilder,
  MemoryCheckpointStore,
  replay,
  ScriptedChatClient,
  tool,
} from '../../../src/index.js';
import {
  call,
  ctxOf,
  desk,
  Desk,
  type DeskState,
  INITIAL,
  lastMessage,
  stateOf,
  toolNames,
} from '../state/support.js';

/**
 * triage → billing; billing → refunds only while `isVerified` holds. billing calls `verify` (sets
 * verified) when the user says "verify", then hands off to refunds if offered; otherwise it hands
 * off if offered, else answers "not yet".
 */
function guardedDesk(
  update: (draft: DeskState) => void = (draft) => {
    draft.verified = true;
  },
  store?: CheckpointStore,
) {
  const verify = tool({
    name: 'verify',
    description: 'Verifies the customer.',
    parameters: z.object({}),
    execute: async (_args, raw) => {
      ctxOf(raw).updateState(update);
      return 'verified';
    },
  });
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient(() => ({
      content: null,
      toolCalls: [call('handoff_to_billing')],
    })),
  });
  const billing = new Agent({
    name: 'billing',
    tools: [verify],
    maxToolIterations: 3,
    client: new ScriptedChatClient((request) => {
      const offered = toolNames(request).includes('handoff_to_refunds');
      if (lastMessage(request)?.role !== 'tool' && !offered) {
        return JSON.stringify(request.messages).includes('verify')
          ? { content: null, toolCalls: [call('verify')] }
          : { content: 'not yet' };
      }
      return offered
        ? { content: null, toolCalls: [call('handoff_to_refunds')] }
        : { content: 'not yet' };
    }),
  });
  const refunds = new Agent({
    name: 'refunds',
    client: new ScriptedChatClient(() => ({ content: 'Refunds here' })),
  });
  const builder = new HandoffBuilder({
    name: 'guarded',
    participants: [triage, billing, refunds],
    state: { schema: Desk, initial: INITIAL },
  } as ConstructorParameters<typeof HandoffBuilder>[0]);
  return (store === undefined ? builder : builder.withCheckpointing(store))
    .coordinator(triage)
    .addHandoff(billing, [refunds], {
      when: function isVerified(state: DeskState) {
        return state.verified;
      },
    } as never)
    .build();
}

async function recordDesk() {
  const { workflow } = desk();
  const session = workflow.session('stateful');
  expect((await session.run('please verify C-42')).pendingRequest!.prompt).toBe('Verified C-42');
  expect((await session.run('make it high')).pendingRequest!.prompt).toBe('Escalated');
  return session.record();
}

describe('record and replay with conversation state (API.md §19, §18)', () => {
  // Was a DISCREPANCY (integration of §18 with §19), fixed in the merge: record() hashed the
  // agent's instructions as a string and threw a TypeError for instructions given as a function.
  it('a session with function instructions and state updates records and replays ok', async () => {
    const recording = await recordDesk();
    expect(JSON.parse(JSON.stringify(recording))).toEqual(recording);
    expect(await replay(desk().workflow, recording)).toEqual({ ok: true, turns: 4 });
    expect(await replay(desk().workflow, recording, { tools: 'live' })).toEqual({
      ok: true,
      turns: 4,
    });
  });

  // Was a DISCREPANCY (recorded tools' state updates were not replayed), fixed (branch replay-state).
  it('a handoff offered by a `when` guard after a tool update records and replays ok', async () => {
    const session = guardedDesk().session('guarded-tool');
    const result = await session.run('verify me');
    expect(result.pendingRequest).toMatchObject({ agent: 'refunds', prompt: 'Refunds here' });
    const recording = await session.record();
    expect(await replay(guardedDesk(), recording)).toEqual({ ok: true, turns: 3 });
  });

  // Was a DISCREPANCY (the application's updateState steps were not replayed), fixed (branch
  // replay-state).
  it('a handoff offered by a `when` guard after an app update records and replays ok', async () => {
    const session = guardedDesk().session('guarded-app');
    await stateOf(session).updateState((draft: DeskState) => {
      draft.verified = true;
    });
    const result = await session.run('hello');
    expect(result.pendingRequest).toMatchObject({ agent: 'refunds', prompt: 'Refunds here' });
    const recording = await session.record();
    expect(await replay(guardedDesk(), recording)).toEqual({ ok: true, turns: 3 });
  });

  it('a live tool that now updates the state otherwise is a state_update divergence at its call', async () => {
    const session = guardedDesk().session('guarded-live');
    await session.run('verify me');
    const recording = await session.record();
    expect(recording.turns[1]?.stateUpdates).toEqual([
      {
        callId: recording.turns[1]?.results[0]?.callId,
        ops: [{ op: 'replace', path: '/verified', value: true }],
      },
    ]);
    const otherwise = () =>
      guardedDesk((draft) => {
        draft.verified = true;
        draft.priority = 'high';
      });
    expect(await replay(otherwise(), recording, { tools: 'live' })).toEqual({
      ok: false,
      turns: 2,
      divergence: {
        turn: 2,
        agent: 'billing',
        what: 'state_update',
        expected: [{ op: 'replace', path: '/verified', value: true }],
        actual: [
          { op: 'replace', path: '/verified', value: true },
          { op: 'replace', path: '/priority', value: 'high' },
        ],
      },
    });
    // A tool that no longer updates the state at all: the same divergence, with no operations.
    const none = guardedDesk(() => {});
    expect((await replay(none, recording, { tools: 'live' })).divergence).toEqual({
      turn: 2,
      agent: 'billing',
      what: 'state_update',
      expected: [{ op: 'replace', path: '/verified', value: true }],
      actual: [],
    });
    // With recorded tools the tool does not run: its recorded update is made, and all goes as
    // recorded.
    expect(await replay(otherwise(), recording)).toEqual({ ok: true, turns: 3 });
  });

  it('a recording of a session without state updates has no state fields', async () => {
    const session = guardedDesk().session('guarded-none');
    await session.run('hello');
    const recording = await session.record();
    expect(recording.turns.some((t) => 'stateUpdates' in t)).toBe(false);
    expect(recording.runs.some((r) => 'stateUpdates' in r)).toBe(false);
    expect(await replay(guardedDesk(), recording)).toEqual({ ok: true, turns: 2 });
  });

  it('an app update made while paused is replayed before the run that follows it (recorded from the store)', async () => {
    const store = new MemoryCheckpointStore();
    const session = guardedDesk(undefined, store).session('guarded-later');
    const first = await session.run('hello');
    expect(first.pendingRequest).toMatchObject({ agent: 'billing', prompt: 'not yet' });
    await stateOf(session).updateState((draft: DeskState) => {
      draft.verified = true;
    });
    const second = await session.run('and now?');
    expect(second.pendingRequest).toMatchObject({ agent: 'refunds', prompt: 'Refunds here' });
    // Another workflow object reads the session from the store (its log replayed).
    const recording = await guardedDesk(undefined, store).session('guarded-later').record();
    expect(recording.runs.map((r) => r.stateUpdates ?? null)).toEqual([
      null,
      [[{ op: 'replace', path: '/verified', value: true }]],
    ]);
    expect(recording.turns.map((t) => t.agent)).toEqual([
      'triage',
      'billing',
      'triage',
      'billing',
      'refunds',
    ]);
    expect(await replay(guardedDesk(), recording)).toEqual({ ok: true, turns: 5 });
    expect(await replay(guardedDesk(), recording, { tools: 'live' })).toEqual({
      ok: true,
      turns: 5,
    });
  });
});
