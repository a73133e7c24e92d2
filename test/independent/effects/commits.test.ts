// Independent suite for API.md §17: the start commit of a batch with a "once" call. Written from
// API.md alone. Readings where the page is open:
// - the extra commit is compared with the same flow whose tools are all "read": the "once" flow's
//   `checkpoints()` events are the read flow's with `tool_calls_started:<agent>` inserted once per
//   batch with a "once" call, just before the step that holds that turn's answer;
// - the default effect is observed as "once" through that commit and through the in-doubt pause.
import { describe, expect, it } from 'vitest';

import {
  Agent,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  scriptedText,
} from '../../../src/index.js';
import {
  calls,
  deskWorkflow,
  type Effect,
  ledgerTool,
  memoryLedger,
  counts,
  ofType,
} from './support.js';

/** Runs one turn: the model's batches in order, then `Done.`; returns the checkpoint events. */
async function eventsOf(
  batches: [id: string, name: string][][],
  effects: Record<string, Effect | undefined>,
) {
  const ledger = memoryLedger();
  const tools = Object.entries(effects).map(([name, effect]) =>
    ledgerTool(ledger, effect === undefined ? { name } : { name, effect }),
  );
  const store = new MemoryCheckpointStore();
  const { workflow, client } = deskWorkflow({
    tools,
    steps: [
      ...batches.map((b) => calls(...b.map(([id, name]) => [id, name] as [string, string]))),
      scriptedText('Done.'),
    ],
    store,
    maxToolIterations: batches.length + 1,
  });
  const session = workflow.session('commits');
  const result = await session.run('go');
  return {
    events: (await session.checkpoints()).map((c) => c.event),
    steps: (await session.checkpoints()).map((c) => c.step),
    result,
    ledger: ledger.lines(),
    modelCalls: client.calls.length,
  };
}

const allRead = (names: string[]) => Object.fromEntries(names.map((n) => [n, 'read' as Effect]));

describe('the start commit (API.md §17)', () => {
  it('a batch with one "once" call costs exactly one extra commit, listed as tool_calls_started:<agent>', async () => {
    const once = await eventsOf([[['c1', 'refund']]], { refund: 'once' });
    const read = await eventsOf([[['c1', 'refund']]], { refund: 'read' });
    expect(once.result.status).toBe('awaiting_input');
    expect(read.result.status).toBe('awaiting_input');
    expect(once.ledger).toEqual(['refund:c1']);
    expect(read.ledger).toEqual(['refund:c1']);
    expect(once.events).toHaveLength(read.events.length + 1);
    expect(once.events.filter((e) => e === 'tool_calls_started:desk')).toHaveLength(1);
    expect(once.events.filter((e) => e !== 'tool_calls_started:desk')).toEqual(read.events);
    // The start is committed before the step that holds the turn's answer.
    const start = once.events.indexOf('tool_calls_started:desk');
    expect(start).toBeGreaterThan(0);
    expect(once.events[start - 1]).toBe(read.events[start - 1]);
    // Steps stay consecutive.
    expect(once.steps).toEqual(once.steps.map((_, i) => once.steps[0]! + i));
  });

  it('a tool without `effect` is "once": its batch has the start commit', async () => {
    const implicit = await eventsOf([[['c1', 'refund']]], { refund: undefined });
    const explicit = await eventsOf([[['c1', 'refund']]], { refund: 'once' });
    expect(implicit.events).toEqual(explicit.events);
    expect(implicit.events).toContain('tool_calls_started:desk');
  });

  it('a batch of several "once" calls (and a read call) still costs one commit', async () => {
    const batch: [string, string][][] = [
      [
        ['c1', 'lookup'],
        ['c2', 'refund'],
        ['c3', 'notify'],
      ],
    ];
    const mixed = await eventsOf(batch, { lookup: 'read', refund: 'once', notify: 'once' });
    const read = await eventsOf(batch, allRead(['lookup', 'refund', 'notify']));
    expect(counts(mixed.ledger)).toEqual({ lookup: 1, refund: 1, notify: 1 });
    expect(mixed.events.filter((e) => e === 'tool_calls_started:desk')).toHaveLength(1);
    expect(mixed.events.filter((e) => e !== 'tool_calls_started:desk')).toEqual(read.events);
  });

  it('a batch of "read" calls costs no extra commit; one with an "idempotent" call costs one', async () => {
    // Issue 43: an idempotent call's start is committed too, so a run cut off while it runs runs
    // the same call (the same ctx.callId) again instead of asking the model anew.
    const batch: [string, string][][] = [
      [
        ['c1', 'lookup'],
        ['c2', 'ping'],
      ],
    ];
    const idempotent = await eventsOf(batch, { lookup: 'read', ping: 'idempotent' });
    const read = await eventsOf(batch, allRead(['lookup', 'ping']));
    expect(read.events.some((e) => e.startsWith('tool_calls_started'))).toBe(false);
    expect(idempotent.events.filter((e) => e === 'tool_calls_started:desk')).toHaveLength(1);
    expect(idempotent.events.filter((e) => e !== 'tool_calls_started:desk')).toEqual(read.events);
    expect(counts(idempotent.ledger)).toEqual({ lookup: 1, ping: 1 });
  });

  it('one extra commit per batch with a "once" or "idempotent" call, none for the read batches', async () => {
    const batches: [string, string][][] = [
      [
        ['c1', 'refund'],
        ['c2', 'notify'],
      ],
      [['c3', 'lookup']],
      [
        ['c4', 'lookup'],
        ['c5', 'refund'],
      ],
      [['c6', 'ping']],
    ];
    const effects = { refund: 'once', notify: 'once', lookup: 'read', ping: 'idempotent' } as const;
    const turn = await eventsOf(batches, effects);
    const read = await eventsOf(batches, allRead(['refund', 'notify', 'lookup', 'ping']));
    expect(turn.modelCalls).toBe(5);
    expect(turn.ledger).toEqual([
      'refund:c1',
      'notify:c2',
      'lookup:c3',
      'lookup:c4',
      'refund:c5',
      'ping:c6',
    ]);
    expect(turn.events.filter((e) => e === 'tool_calls_started:desk')).toHaveLength(3);
    expect(turn.events.filter((e) => e !== 'tool_calls_started:desk')).toEqual(read.events);
  });

  it('handoff tools are "read": a handoff batch costs no extra commit', async () => {
    const store = new MemoryCheckpointStore();
    const triage = new Agent({
      name: 'triage',
      client: new ScriptedChatClient([calls(['h1', 'handoff_to_billing'])]),
    });
    const billing = new Agent({
      name: 'billing',
      client: new ScriptedChatClient([scriptedText('Billing here.')]),
    });
    const workflow = new HandoffBuilder({
      name: 'handoff-effects',
      participants: [triage, billing],
    })
      .coordinator(triage)
      .withCheckpointing(store)
      .build();
    const session = workflow.session('handoff');
    const result = await session.run('hello');
    expect(result.status).toBe('awaiting_input');
    expect(result.pendingRequest?.agent).toBe('billing');
    expect(ofType(result.messages, 'HandoffMessage')).toHaveLength(1);
    const events = (await session.checkpoints()).map((c) => c.event);
    expect(events.some((e) => e.startsWith('tool_calls_started'))).toBe(false);
  });

  it('a "once" call in a second agent names that agent in its start commit', async () => {
    const store = new MemoryCheckpointStore();
    const ledger = memoryLedger();
    const triage = new Agent({
      name: 'triage',
      client: new ScriptedChatClient([calls(['h1', 'handoff_to_billing'])]),
    });
    const billing = new Agent({
      name: 'billing',
      tools: [ledgerTool(ledger, { name: 'refund' })],
      maxToolIterations: 2,
      client: new ScriptedChatClient([calls(['r1', 'refund']), scriptedText('Refunded.')]),
    });
    const workflow = new HandoffBuilder({ name: 'handoff-once', participants: [triage, billing] })
      .coordinator(triage)
      .withCheckpointing(store)
      .build();
    const session = workflow.session('billing-once');
    const result = await session.run('refund please');
    expect(result.status).toBe('awaiting_input');
    expect(ledger.lines()).toEqual(['refund:r1']);
    const events = (await session.checkpoints()).map((c) => c.event);
    expect(events.filter((e) => e.startsWith('tool_calls_started'))).toEqual([
      'tool_calls_started:billing',
    ]);
  });
});
