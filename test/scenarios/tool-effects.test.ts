// API.md §17 in one process: the effect option, the start commit and its event, calls in doubt
// after a cancelled run (a memory store, and none), the three decisions, a text reply, and the
// ConfigErrors. The crash matrix over the stores is test/integration/tool-effects-crash.test.ts.
import { z } from 'zod';
import { describe, expect, it } from 'vitest';

import {
  Agent,
  approve,
  ConfigError,
  HandoffBuilder,
  MemoryCheckpointStore,
  reject,
  resolve,
  ScriptedChatClient,
  tool,
  type ToolEffect,
} from '../../src/index.js';
import { lines } from './approvals-helpers.js';

/**
 * Agent `clerk` calls `charge` (effect `once`, unless given) and `lookup` (`read`) in one batch;
 * `charge` hangs until the run is cancelled when `hang` is set. `runs` logs each execution.
 */
function desk(options: { store?: boolean; effect?: ToolEffect; hang?: boolean } = {}) {
  const runs: string[] = [];
  const controller = { current: new AbortController() };
  const charge = tool({
    name: 'charge',
    description: 'Charges a card.',
    parameters: z.object({ amount: z.number() }),
    ...(options.effect === undefined ? {} : { effect: options.effect }),
    execute: ({ amount }, ctx) => {
      runs.push(`charge:${amount}@${ctx.callId}`);
      if (options.hang !== true || runs.length > 1) return `Charged ${amount}.`;
      controller.current.abort();
      return new Promise<string>(() => {});
    },
  });
  const lookup = tool({
    name: 'lookup',
    description: 'Finds a card.',
    parameters: z.object({}),
    effect: 'read',
    execute: (_args, ctx) => {
      runs.push(`lookup@${ctx.callId}`);
      return 'Card 4242.';
    },
  });
  const client = new ScriptedChatClient((request) => {
    if (request.messages.some((m) => m.role === 'tool')) {
      const results = request.messages.filter((m) => m.role === 'tool').map((m) => m.content);
      return { content: `Done: ${results.join(' | ')}` };
    }
    return {
      toolCalls: [
        { id: 'c1', name: 'charge', arguments: '{"amount":5}' },
        { id: 'c2', name: 'lookup', arguments: '{}' },
      ],
    };
  });
  const clerk = new Agent({ name: 'clerk', client, tools: [charge, lookup], maxToolIterations: 2 });
  const builder = new HandoffBuilder({ name: 'shop', participants: [clerk] }).coordinator(clerk);
  if (options.store === true) builder.withCheckpointing(new MemoryCheckpointStore());
  return { runs, controller, client, workflow: builder.build() };
}

/** A desk whose `charge` was cancelled while it ran: `charge` is in doubt. */
async function inDoubt(store = false) {
  const d = desk({ store, hang: true });
  const cancelled = await d.workflow.run('Charge 5', { signal: d.controller.current.signal });
  expect(cancelled.status).toBe('cancelled');
  const paused = await d.workflow.run();
  return { ...d, paused };
}

describe('tool effects (API.md §17)', () => {
  it('defaults to "once" and checks the option', () => {
    const make = (effect?: unknown) =>
      tool({
        name: 't',
        parameters: z.object({}),
        ...(effect === undefined ? {} : { effect: effect as ToolEffect }),
        execute: () => '',
      });
    expect(make().effect).toBe('once');
    expect(make('read').effect).toBe('read');
    expect(make('idempotent').effect).toBe('idempotent');
    expect(() => make('twice')).toThrow(ConfigError);
    expect(() => make('twice')).toThrow(
      'Tool "t" needs `effect` to be "read", "idempotent" or "once", got "twice".',
    );
  });

  it('commits the start of a batch with a "once" or "idempotent" call as tool_calls_started:<agent>, and only then', async () => {
    const once = desk({ store: true });
    await once.workflow.run('Charge 5');
    const started = ['user_input', 'tool_calls_started:clerk', 'agent_response:clerk'];
    expect((await once.workflow.session('default').checkpoints()).map((c) => c.event)).toEqual(
      started,
    );
    const idempotent = desk({ store: true, effect: 'idempotent' });
    await idempotent.workflow.run('Charge 5');
    expect(
      (await idempotent.workflow.session('default').checkpoints()).map((c) => c.event),
    ).toEqual(started);
    const read = desk({ store: true, effect: 'read' });
    await read.workflow.run('Charge 5');
    expect((await read.workflow.session('default').checkpoints()).map((c) => c.event)).toEqual([
      'user_input',
      'agent_response:clerk',
    ]);
    expect(once.runs).toEqual(['charge:5@c1', 'lookup@c2']);
  });

  for (const store of [false, true]) {
    const where = store ? 'with a memory store' : 'without a store';
    it(`pauses in doubt after a run cancelled while a "once" call ran (${where})`, async () => {
      const { paused, runs, workflow, client } = await inDoubt(store);
      expect(runs).toEqual(['charge:5@c1', 'lookup@c2']);
      expect(paused.status).toBe('awaiting_input');
      expect(paused.pendingRequest).toEqual({
        id: expect.any(String),
        agent: 'clerk',
        kind: 'in_doubt',
        prompt: 'In doubt (may or may not have completed): charge({"amount":5})',
        calls: [{ id: 'c1', name: 'charge', arguments: '{"amount":5}' }],
      });
      expect(lines(paused.messages)).toEqual([
        'ToolInDoubtEvent(clerk): In doubt (may or may not have completed): charge({"amount":5})',
      ]);
      // run() with no task: the same request, nothing recorded, nothing run.
      const count = (await workflow.session('default').messages()).length;
      const again = await workflow.run();
      expect([again.pendingRequest, again.messages]).toEqual([paused.pendingRequest, []]);
      expect((await workflow.session('default').messages()).length).toBe(count);
      expect(client.calls).toHaveLength(1);
    });
  }

  it('approve runs the call again with the same callId; the read call runs again after it', async () => {
    const { runs, workflow } = await inDoubt();
    const done = await workflow.run(approve('c1'));
    expect(runs).toEqual(['charge:5@c1', 'lookup@c2', 'charge:5@c1', 'lookup@c2']);
    expect(lines(done.messages)).toEqual([
      'ToolApprovalResponseEvent(user): Approved call c1',
      'ToolCallExecutionEvent(clerk): charge: Charged 5.\nlookup: Card 4242.',
      'TextMessage(clerk): Done: Charged 5. | Card 4242.',
      'UserInputRequestedEvent(clerk): Done: Charged 5. | Card 4242.',
    ]);
  });

  it('reject gives the model the in-doubt error result with the reason', async () => {
    const { runs, workflow } = await inDoubt();
    const done = await workflow.run(reject('c1', 'the bank shows it'));
    expect(runs).toEqual(['charge:5@c1', 'lookup@c2', 'lookup@c2']);
    const execution = done.messages.find((m) => m.type === 'ToolCallExecutionEvent');
    expect(execution?.type === 'ToolCallExecutionEvent' && execution.content[0]).toEqual({
      callId: 'c1',
      name: 'charge',
      content:
        'Tool call "charge" may or may not have completed; it was not retried: the bank shows it',
      isError: true,
    });
  });

  it("resolve records the decision and the result as the tool's, without running it", async () => {
    const { runs, workflow } = await inDoubt();
    const done = await workflow.run(resolve('c1', 'Charged 5 (seen at the bank).'));
    expect(runs).toEqual(['charge:5@c1', 'lookup@c2', 'lookup@c2']);
    const [decision, execution] = done.messages;
    expect(decision).toMatchObject({
      type: 'ToolApprovalResponseEvent',
      source: 'user',
      callId: 'c1',
      approved: true,
      result: 'Charged 5 (seen at the bank).',
    });
    expect(execution?.type === 'ToolCallExecutionEvent' && execution.content[0]).toEqual({
      callId: 'c1',
      name: 'charge',
      content: 'Charged 5 (seen at the bank).',
      isError: false,
    });
  });

  it('a text reply rejects every call in doubt with the text as reason, for the same agent', async () => {
    const { runs, workflow } = await inDoubt();
    const done = await workflow.run('Do not charge again.');
    expect(runs).toEqual(['charge:5@c1', 'lookup@c2', 'lookup@c2']);
    expect(lines(done.messages).slice(0, 2)).toEqual([
      'TextMessage(user): Do not charge again.',
      'ToolCallExecutionEvent(clerk): charge (error): Tool call "charge" may or may not have ' +
        'completed; it was not retried: Do not charge again.\nlookup: Card 4242.',
    ]);
  });

  it('rejects an unknown call id, and resolve() outside doubt, with ConfigError before committing', async () => {
    const { workflow } = await inDoubt();
    const before = (await workflow.session('default').messages()).length;
    await expect(workflow.run(resolve('c9', 'x'))).rejects.toThrow(
      'run(): session "default" has no pending tool call "c9"; the calls in doubt are "c1" ' +
        '(charge). Pass the id of a call from pendingRequest.calls to approve(), reject() or resolve().',
    );
    expect((await workflow.session('default').messages()).length).toBe(before);

    const refund = tool({
      name: 'refund',
      parameters: z.object({}),
      needsApproval: true,
      execute: () => 'Refunded.',
    });
    const client = new ScriptedChatClient([
      { content: null, toolCalls: [{ id: 'r1', name: 'refund', arguments: '{}' }] },
    ]);
    const agent = new Agent({ name: 'desk', client, tools: [refund] });
    const flow = new HandoffBuilder({ name: 'd', participants: [agent] })
      .coordinator(agent)
      .build();
    await flow.run('Refund');
    const error = await flow.run(resolve('r1', 'Refunded.')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      'run(): resolve("r1") is only for a call in doubt; call "r1" awaits approval. Decide it ' +
        'with approve() or reject().',
    );
  });
});
