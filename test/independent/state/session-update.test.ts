// Independent suite for API.md §18: `session.updateState(recipe)` from the application and
// `session.state()`. Written from API.md alone. Readings where the page is open:
// - "a recipe that throws rejects with its error": the very error object the recipe threw;
// - "nothing committed" for an invalid update: checkpoints() and messages() are unchanged;
// - an app update is one step: checkpoints() grows by exactly one entry, event `state_update`.
import { describe, expect, it } from 'vitest';

import {
  Agent,
  ConfigError,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  SessionBusyError,
} from '../../../src/index.js';
import { deepFrozen, Desk, desk, type DeskState, INITIAL, stateOf, systemText } from './support.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('session.updateState (API.md §18)', () => {
  it('rejects with SessionBusyError while the session runs, and changes nothing', async () => {
    const started = deferred();
    const release = deferred();
    const slow = new Agent({
      name: 'slow',
      client: new ScriptedChatClient(async () => {
        started.resolve();
        await release.promise;
        return { content: 'finally' };
      }),
    });
    const workflow = new HandoffBuilder({
      name: 'busy',
      participants: [slow],
      state: { schema: Desk, initial: INITIAL },
    } as ConstructorParameters<typeof HandoffBuilder>[0])
      .coordinator(slow)
      .withCheckpointing(new MemoryCheckpointStore())
      .build();
    const session = workflow.session('busy');
    const running = session.run('hello');
    await started.promise;
    let recipeRan = false;
    await expect(
      stateOf(session).updateState((draft: DeskState) => {
        recipeRan = true;
        draft.verified = true;
      }),
    ).rejects.toBeInstanceOf(SessionBusyError);
    // The same through another handle of the same session.
    await expect(
      stateOf(workflow.session('busy')).updateState((draft: DeskState) => {
        draft.verified = true;
      }),
    ).rejects.toBeInstanceOf(SessionBusyError);
    release.resolve();
    const result = await running;
    expect(result.status).toBe('awaiting_input');
    expect(recipeRan).toBe(false);
    expect(await stateOf(session).state()).toEqual(INITIAL);
  });

  it('on a paused session: keeps the pause, adds no message, one `state_update` step; the next turn sees it', async () => {
    const { workflow, billingClient } = desk({ store: new MemoryCheckpointStore() });
    const session = workflow.session('paused');
    const first = await session.run('hello');
    expect(first.status).toBe('awaiting_input');
    const infoBefore = await session.info();
    const messagesBefore = await session.messages();
    const stepsBefore = await session.checkpoints();
    await stateOf(session).updateState((draft: DeskState) => {
      draft.customerId = 'C-5';
      draft.priority = 'high';
    });
    const infoAfter = await session.info();
    expect(infoAfter.status).toBe('awaiting_input');
    expect(infoAfter.pendingRequest).toEqual(infoBefore.pendingRequest);
    expect(infoAfter.state).toEqual({ customerId: 'C-5', verified: false, priority: 'high' });
    expect(infoAfter.step).toBe(infoBefore.step + 1);
    expect(await session.messages()).toEqual(messagesBefore);
    const stepsAfter = await session.checkpoints();
    expect(stepsAfter.slice(0, stepsBefore.length)).toEqual(stepsBefore);
    expect(stepsAfter).toHaveLength(stepsBefore.length + 1);
    expect(stepsAfter.at(-1)).toMatchObject({ step: infoAfter.step, event: 'state_update' });
    // The reply goes on from the same pause; billing's instructions see the app's update.
    const second = await session.run('thanks');
    expect(second.status).toBe('awaiting_input');
    expect(systemText(billingClient.calls.at(-1)!)).toBe(
      'Customer C-5, verified false, priority high.',
    );
  });

  it('a recipe that throws rejects with its error; nothing is committed', async () => {
    const { workflow } = desk({ store: new MemoryCheckpointStore() });
    const session = workflow.session('throws');
    await session.run('hello');
    const steps = await session.checkpoints();
    const oops = new Error('recipe broke');
    await expect(
      stateOf(session).updateState((draft: DeskState) => {
        draft.verified = true;
        throw oops;
      }),
    ).rejects.toBe(oops);
    expect(await session.checkpoints()).toEqual(steps);
    expect(await stateOf(session).state()).toEqual(INITIAL);
  });

  it('an invalid new state is a ConfigError naming the field; nothing is committed', async () => {
    const { workflow } = desk({ store: new MemoryCheckpointStore() });
    const session = workflow.session('invalid-app');
    await session.run('hello');
    const steps = await session.checkpoints();
    const messages = await session.messages();
    const error = await stateOf(session)
      .updateState((draft: DeskState) => {
        draft.customerId = 'C-1';
        (draft as { priority: string }).priority = 'urgent';
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('priority');
    expect(await session.checkpoints()).toEqual(steps);
    expect(await session.messages()).toEqual(messages);
    expect(await stateOf(session).state()).toEqual(INITIAL);
    expect((await session.info()).state).toEqual(INITIAL);
  });

  it('updates before the first run; several app updates are several `state_update` steps', async () => {
    const { workflow } = desk({ store: new MemoryCheckpointStore() });
    const session = workflow.session('early');
    await stateOf(session).updateState((draft: DeskState) => {
      draft.customerId = 'C-2';
    });
    await stateOf(session).updateState((draft: DeskState) => {
      draft.verified = true;
    });
    const steps = await session.checkpoints();
    expect(steps.map((s) => s.event)).toEqual(['state_update', 'state_update']);
    expect(steps[1]!.step).toBeGreaterThan(steps[0]!.step);
    expect(await session.messages()).toEqual([]);
    expect(await stateOf(session).state()).toEqual({
      ...INITIAL,
      customerId: 'C-2',
      verified: true,
    });
    const result = await session.run('hello');
    expect(result.pendingRequest!.prompt).toBe('Billing: hello');
  });

  it('state() is a deep-frozen copy, equal across calls and unaffected by later updates', async () => {
    const { workflow } = desk({ store: new MemoryCheckpointStore() });
    const session = workflow.session('copy');
    const before = await stateOf(session).state();
    expect(deepFrozen(before)).toBe(true);
    await stateOf(session).updateState((draft: DeskState) => {
      draft.verified = true;
    });
    expect(before).toEqual(INITIAL);
    const after = await stateOf(session).state();
    expect(after).toEqual({ ...INITIAL, verified: true });
    expect(deepFrozen(after)).toBe(true);
  });

  // Was a DISCREPANCY with API.md §18, fixed ("runs the recipe on an immer draft"; patches are RFC 6902, where
  // the path "" is the whole document): a recipe that returns a replacement, as immer allows,
  // rejects with a plain Error "the state patch replace \"\" does not name a member".
  it('a recipe may return a replacement value (immer)', async () => {
    const { workflow } = desk({ store: new MemoryCheckpointStore() });
    const session = workflow.session('replace');
    await stateOf(session).updateState(() => ({
      customerId: 'C-8',
      verified: true,
      priority: 'high',
    }));
    expect(await stateOf(session).state()).toEqual({
      customerId: 'C-8',
      verified: true,
      priority: 'high',
    });
  });

  // Was a DISCREPANCY with API.md §18, fixed (an app's invalid update "is a ConfigError"; without a schema
  // "any JSON object is accepted", so an array is not): the implementation rejects with a plain
  // Error "the state patch replace \"\" does not name a member" (same root cause as above).
  it('without a schema, a recipe replacing the state with a non-object is a ConfigError; nothing changes', async () => {
    const { workflow } = desk({ noState: true, store: new MemoryCheckpointStore() });
    const session = workflow.session('array');
    const steps = await session.checkpoints();
    const error = await stateOf(session)
      .updateState(() => [1, 2])
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(ConfigError);
    expect(await stateOf(session).state()).toEqual({});
    expect(await session.checkpoints()).toEqual(steps);
  });
});
