// Independent suite for API.md §18 `when` guards on handoffs: the handoff tool is offered to the
// model only while the guard holds (read from the requests the scripted model receives), a forged
// call is an error result and not a handoff, and toMermaid() / the machine name the guard.
// Written from API.md alone. Readings where the page is open:
// - `addHandoff(coordinator, [target], { when })` guards one of the coordinator's own handoffs
//   ("checked at every model call of that agent, the coordinator's included");
// - an anonymous guard is a function whose `name` is "" (an arrow in an array: an arrow written
//   directly as `{ when: () => … }` is named "when" by JavaScript);
// - the compiled machine carries the guard by name: in its config or its `implementations.guards`.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  type AgentMessage,
  HandoffBuilder,
  MemoryCheckpointStore,
  type ModelRequest,
  ScriptedChatClient,
  tool,
  type ToolCallExecutionEvent,
} from '../../../src/index.js';
import {
  call,
  ctxOf,
  Desk,
  type DeskState,
  INITIAL,
  lastMessage,
  lastUser,
  stateOf,
  toolNames,
} from './support.js';

type Guard = (state: DeskState) => boolean;

function isVerified(state: DeskState) {
  return state.verified;
}

/**
 * triage → billing (always); billing → refunds guarded by `when`. billing: "verify" → calls
 * `verify`, then hands off to refunds if the tool is offered, else answers "cannot refund yet";
 * "forge" → calls handoff_to_refunds whatever it was offered, then answers "forge refused" after
 * the error result; else answers `Billing: <text>`.
 */
function guardedDesk(options: { when?: Guard; coordinatorWhen?: Guard } = {}) {
  const verify = tool({
    name: 'verify',
    description: 'Verifies the customer.',
    parameters: z.object({}),
    execute: async (_args, raw) => {
      ctxOf(raw).updateState((draft: DeskState) => {
        draft.verified = true;
      });
      return 'verified';
    },
  });
  const triageClient = new ScriptedChatClient((request: ModelRequest) => {
    const text = lastUser(request);
    if (text.includes('straight to refunds') && toolNames(request).includes('handoff_to_refunds')) {
      return { content: null, toolCalls: [call('handoff_to_refunds')] };
    }
    return { content: null, toolCalls: [call('handoff_to_billing')] };
  });
  const billingClient = new ScriptedChatClient((request: ModelRequest) => {
    const last = lastMessage(request);
    const text = lastUser(request);
    if (last?.role === 'tool') {
      if (text.includes('forge')) return { content: 'forge refused' };
      return toolNames(request).includes('handoff_to_refunds')
        ? { content: null, toolCalls: [call('handoff_to_refunds')] }
        : { content: 'cannot refund yet' };
    }
    if (text.includes('forge')) return { content: null, toolCalls: [call('handoff_to_refunds')] };
    if (text.includes('verify')) return { content: null, toolCalls: [call('verify')] };
    if (toolNames(request).includes('handoff_to_refunds')) {
      return { content: null, toolCalls: [call('handoff_to_refunds')] };
    }
    return { content: `Billing: ${text}` };
  });
  const refundsClient = new ScriptedChatClient(() => ({ content: 'Refunds here' }));
  const triage = new Agent({ name: 'triage', client: triageClient });
  const billing = new Agent({
    name: 'billing',
    tools: [verify],
    maxToolIterations: 3,
    client: billingClient,
  });
  const refunds = new Agent({ name: 'refunds', client: refundsClient });
  let builder = new HandoffBuilder({
    name: 'guarded',
    participants: [triage, billing, refunds],
    state: { schema: Desk, initial: INITIAL },
  } as ConstructorParameters<typeof HandoffBuilder>[0])
    .coordinator(triage)
    .addHandoff(billing, [refunds], { when: options.when ?? isVerified } as never);
  if (options.coordinatorWhen) {
    builder = builder.addHandoff(triage, [refunds], { when: options.coordinatorWhen } as never);
  }
  const workflow = builder.withCheckpointing(new MemoryCheckpointStore()).build();
  return { workflow, triageClient, billingClient, refundsClient };
}

const handoffs = (messages: readonly AgentMessage[]) =>
  messages
    .filter((m) => m.type === 'HandoffMessage')
    .map((m) => `${m.source}->${(m as { target: string }).target}`);

describe('`when` guards on handoffs (API.md §18)', () => {
  it('the guarded handoff tool is absent from the request until the guard holds, then offered in the same turn', async () => {
    const { workflow, billingClient, refundsClient } = guardedDesk();
    const session = workflow.session('offered');
    const result = await session.run('verify me and refund');
    expect(billingClient.calls.map(toolNames)).toEqual([
      ['verify'],
      ['handoff_to_refunds', 'verify'],
    ]);
    expect(handoffs(result.messages)).toEqual(['triage->billing', 'billing->refunds']);
    expect(refundsClient.calls).toHaveLength(1);
    expect(result.pendingRequest).toMatchObject({ agent: 'refunds', prompt: 'Refunds here' });
    expect(await stateOf(session).state()).toEqual({ ...INITIAL, verified: true });
  });

  it('without the guard holding, the model is never offered the handoff', async () => {
    const { workflow, billingClient, refundsClient } = guardedDesk();
    const session = workflow.session('never');
    const result = await session.run('hello');
    expect(billingClient.calls.map(toolNames)).toEqual([['verify']]);
    expect(result.pendingRequest).toMatchObject({ agent: 'billing', prompt: 'Billing: hello' });
    expect(refundsClient.calls).toHaveLength(0);
    // The application's update makes the guard hold for the next model call.
    await stateOf(session).updateState((draft: DeskState) => {
      draft.verified = true;
    });
    const next = await session.run('now?');
    expect(billingClient.calls.map(toolNames).at(-1)).toEqual(['handoff_to_refunds', 'verify']);
    expect(handoffs(next.messages)).toEqual(['triage->billing', 'billing->refunds']);
    expect(next.pendingRequest).toMatchObject({ agent: 'refunds', prompt: 'Refunds here' });
  });

  it('a model that calls the guarded handoff anyway gets an error result, not a handoff', async () => {
    const { workflow, billingClient, refundsClient } = guardedDesk();
    const session = workflow.session('forged');
    const result = await session.run('forge a refund');
    const results = result.messages
      .filter((m): m is ToolCallExecutionEvent => m.type === 'ToolCallExecutionEvent')
      .flatMap((m) => m.content)
      .filter((r) => r.name === 'handoff_to_refunds');
    expect(results).toHaveLength(1);
    expect(results[0]!.isError).toBe(true);
    expect(handoffs(result.messages)).toEqual(['triage->billing']);
    expect(refundsClient.calls).toHaveLength(0);
    expect(lastMessage(billingClient.calls[1]!)).toMatchObject({
      role: 'tool',
      content: results[0]!.content,
    });
    expect(result.status).toBe('awaiting_input');
    expect(result.pendingRequest).toMatchObject({ agent: 'billing', prompt: 'forge refused' });
  });

  it("the coordinator's guarded handoff is checked at its model calls too", async () => {
    const { workflow, triageClient } = guardedDesk({ coordinatorWhen: isVerified });
    const session = workflow.session('coordinator');
    const first = await session.run('straight to refunds');
    expect(toolNames(triageClient.calls[0]!)).toEqual(['handoff_to_billing']);
    expect(handoffs(first.messages)).toEqual(['triage->billing']);
    await stateOf(session).updateState((draft: DeskState) => {
      draft.verified = true;
    });
    const second = await session.run('straight to refunds');
    expect(toolNames(triageClient.calls[1]!)).toEqual(['handoff_to_billing', 'handoff_to_refunds']);
    expect(handoffs(second.messages)).toEqual(['triage->refunds']);
  });

  it('toMermaid() and the machine name the guard after its function', () => {
    const { workflow } = guardedDesk();
    const mermaid = workflow.toMermaid();
    expect(mermaid).toContain('isVerified');
    expect(mermaid).not.toContain('when_billing_refunds');
    const machine = workflow.machine as unknown as {
      config?: unknown;
      implementations?: { guards?: Record<string, unknown> };
    };
    const named =
      JSON.stringify(machine.config ?? {}).includes('isVerified') ||
      Object.keys(machine.implementations?.guards ?? {}).includes('isVerified');
    expect(named).toBe(true);
  });

  it('an anonymous guard is named when_<from>_<to>', () => {
    const anonymous: Guard[] = [(state) => state.verified];
    expect(anonymous[0]!.name).toBe('');
    const { workflow } = guardedDesk({ when: anonymous[0]! });
    const mermaid = workflow.toMermaid();
    expect(mermaid).toContain('when_billing_refunds');
    // A guard-free workflow shows no guard names.
    const plain = new HandoffBuilder({
      participants: [
        new Agent({ name: 'one', client: new ScriptedChatClient([]) }),
        new Agent({ name: 'two', client: new ScriptedChatClient([]) }),
      ],
    })
      .coordinator('one')
      .build()
      .toMermaid();
    expect(plain).not.toContain('when_');
  });
});
