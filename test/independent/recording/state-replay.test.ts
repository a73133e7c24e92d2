// Independent suite for API.md §19 with §18: a session whose agents have instructions as functions
// of the conversation state, and whose tools update it, is recorded and replays ok when nothing
// changed (with recorded tools, whose updates the replay must restore for the instructions to come
// out the same, and with live tools). Written from API.md alone.
import { describe, expect, it } from 'vitest';

import { replay } from '../../../src/index.js';
import { desk } from '../state/support.js';

async function recordDesk() {
  const { workflow } = desk();
  const session = workflow.session('stateful');
  expect((await session.run('please verify C-42')).pendingRequest!.prompt).toBe('Verified C-42');
  expect((await session.run('make it high')).pendingRequest!.prompt).toBe('Escalated');
  return session.record();
}

describe('record and replay with conversation state (API.md §19, §18)', () => {
  // DISCREPANCY (integration of §18 with §19, in the merged branches): record() hashes the agent's
  // instructions as a string and throws a TypeError for instructions given as a function
  // (`The "data" argument must be of type string … Received function instructions`), so a session
  // of a §18 workflow cannot be recorded at all.
  it.fails(
    'a session with function instructions and state updates records and replays ok',
    async () => {
      const recording = await recordDesk();
      expect(JSON.parse(JSON.stringify(recording))).toEqual(recording);
      expect(await replay(desk().workflow, recording)).toEqual({ ok: true, turns: 4 });
      expect(await replay(desk().workflow, recording, { tools: 'live' })).toEqual({
        ok: true,
        turns: 4,
      });
    },
  );
});
