// Issue 32 (API.md §18): the devtools page shows the conversation state, each step's patch, and
// a guarded handoff's guard name on the graph.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  tool,
} from '../../src/index.js';
import { type DevtoolsServer, startDevtoolsServer } from '../../src/devtools/devtools-server.js';

const servers: DevtoolsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function desk() {
  const verify = tool({
    name: 'verify_customer',
    // It changes only the conversation state: no start commit (§17) before it runs.
    effect: 'read',
    parameters: z.object({}),
    execute: (_a, ctx) => {
      ctx.updateState((draft) => {
        draft.verified = true;
      });
      return 'verified';
    },
  });
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient([scriptedToolCall('verify_customer'), scriptedText('Done.')]),
    tools: [verify],
    maxToolIterations: 2,
  });
  const billing = new Agent({ name: 'billing', client: new ScriptedChatClient([]) });
  return new HandoffBuilder({
    participants: [triage, billing],
    state: { schema: z.object({ verified: z.boolean() }), initial: { verified: false } },
  })
    .coordinator(triage)
    .addHandoff(triage, [billing], {
      when: function isVerified(state) {
        return state.verified === true;
      },
    })
    .withCheckpointing(new MemoryCheckpointStore())
    .build();
}

describe('devtools: the conversation state', () => {
  it("shows the state, each step's patch and the guard's name", async () => {
    const workflow = desk();
    await workflow.session('d1').run('hello');
    const server = await startDevtoolsServer({ workflow, name: 'desk', module: 'desk.ts' });
    servers.push(server);
    const get = async (path: string) => {
      const response = await fetch(`http://127.0.0.1:${server.port}${path}`, {
        headers: { 'x-baton-token': server.token },
      });
      return (await response.json()) as Record<string, unknown>;
    };
    const snap = await get('/api/sessions/d1');
    expect(snap.state).toEqual({ verified: true });
    expect(snap.checkpoints).toEqual([
      { step: 1, at: expect.any(String), event: 'user_input' },
      {
        step: 2,
        at: expect.any(String),
        event: 'agent_response:triage',
        patch: [{ op: 'replace', path: '/verified', value: true }],
      },
    ]);
    const info = await get('/api/workflow');
    expect(JSON.stringify(info)).toContain('handoff_to_billing [isVerified]');
  });
});
