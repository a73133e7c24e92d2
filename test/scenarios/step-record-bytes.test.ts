// Issue 28: the records a store keeps are byte for byte those written before the step became one
// typed value. Sessions of every kind of step (answers, handoffs, pauses, approvals in a turn and in
// a graph step, decisions, guardrails, stops (a condition's, a requested one, `maxTurns`), cancels, resumes, a graph's completion, condition
// state) are run with ids and the clock fixed, and their records are compared with
// test/fixtures/step-records-v3.json, written by the engine before that change (and again when steps
// that stop a run began to record the stop reason, field `w`; the records from before that are kept
// in step-records-v3-before-stop-reasons.json, which must still load). `BATON_WRITE_FIXTURE=1`
// writes the fixture anew (only ever from a commit whose records are known to be right).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('../../src/ids.js', () => {
  let n = 0;
  return {
    newId: (prefix = '') => `${prefix}id-${String(++n).padStart(4, '0')}`,
  };
});

import {
  Agent,
  approve,
  type ChatAgent,
  type CheckpointRecord,
  GraphBuilder,
  guardrail,
  HandoffBuilder,
  MaxMessageTermination,
  MemoryCheckpointStore,
  reject,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  textMessage,
} from '../../src/index.js';
import { calls, deskTools } from './approvals-helpers.js';

const FIXTURE = join(import.meta.dirname, '../fixtures/step-records-v3.json');

function echo(name: string): ChatAgent {
  return {
    name,
    description: name,
    respond: async (ctx) => ({
      chatMessage: textMessage({
        source: name,
        content: `${name} saw ${ctx.newMessages.map((m) => m.source).join(',')}`,
      }),
    }),
  };
}

/** A coordinator that hands off to billing, which refunds two invoices (each needs approval). */
async function handoffSessions(store: MemoryCheckpointStore): Promise<void> {
  const tools = deskTools();
  const triage = new Agent({
    name: 'triage',
    handoffs: ['billing'],
    client: new ScriptedChatClient([
      scriptedToolCall('handoff_to_billing', {}, 'call-1'),
      scriptedToolCall('handoff_to_billing', {}, 'call-2'),
      scriptedText('Sorry, that card number cannot be used 4111111111111111.'),
    ]),
  });
  const billing = new Agent({
    name: 'billing',
    handoffs: ['triage'],
    tools: [tools.lookup, tools.refund],
    maxToolIterations: 3,
    client: new ScriptedChatClient([
      calls(['c1', 'lookup', { invoiceId: 'INV-1' }]),
      calls(['c2', 'refund', { invoiceId: 'INV-1' }], ['c3', 'refund', { invoiceId: 'INV-2' }]),
      scriptedText('Both refunded. Anything else?'),
      scriptedText('Which invoice?'),
    ]),
  });
  const noCards = guardrail({
    name: 'no_card_numbers',
    check: ({ text }) =>
      /\b\d{13,16}\b/.test(text) ? { tripwire: true, info: 'a card number' } : { tripwire: false },
  });
  const desk = new HandoffBuilder({ name: 'bytes-desk', participants: [triage, billing] })
    .coordinator(triage)
    .withGuardrails({ input: [noCards], output: [noCards] })
    .withTerminationCondition(new MaxMessageTermination(40))
    .withCheckpointing(store)
    .build();
  const s = desk.session('desk');
  await s.run('Refund INV-1 and INV-2');
  await s.run(approve('c2'));
  await s.run(reject('c3', 'not that one'));
  await s.run('My card is 4111111111111111');
  await s.run('thanks');
  await s.run('one more thing');
}

/** intake → [billing, refunds] → summary: both pause in one step, decided one at a time. */
async function graphSessions(store: MemoryCheckpointStore): Promise<void> {
  const tools = deskTools();
  const agent = (name: string, invoice: string, prefix: string) =>
    new Agent({
      name,
      client: new ScriptedChatClient([
        calls(
          [`${prefix}1`, 'lookup', { invoiceId: invoice }],
          [`${prefix}2`, 'refund', { invoiceId: invoice }],
        ),
        scriptedText(`${name} done.`),
      ]),
      tools: [tools.lookup, tools.refund],
      maxToolIterations: 2,
    });
  const flow = new GraphBuilder({ name: 'bytes-graph' })
    .addNode(echo('intake'))
    .addNode(agent('billing', 'INV-1', 'b'))
    .addNode(agent('refunds', 'INV-2', 'r'))
    .addNode(echo('summary'))
    .addEdge('intake', ['billing', 'refunds'])
    .addEdge(['billing', 'refunds'], 'summary')
    .withCheckpointing(store)
    .build();
  const s = flow.session('graph');
  await s.run('refund both');
  await s.run(reject('b2', 'not yet'));
  await s.run(approve('r2'));
}

/** A round robin with a message limit: a stop, a requested stop, a cancel and resumes. */
async function teamSessions(store: MemoryCheckpointStore): Promise<void> {
  const team = new RoundRobinGroupChat([echo('a'), echo('b')], {
    terminationCondition: new MaxMessageTermination(4),
    checkpointStore: store,
  });
  const s = team.session('team');
  await s.run('go');
  await s.run('again');
  const aborted = new AbortController();
  aborted.abort();
  await s.run('cancelled', { signal: aborted.signal });
  await s.run();
  s.stop('enough');
  await s.run('after stop');
  const short = new RoundRobinGroupChat([echo('a'), echo('b')], {
    maxTurns: 3,
    checkpointStore: store,
  });
  await short.session('turns').run('count');
  await short.session('turns').run();
}

let records: Record<string, readonly CheckpointRecord[]>;

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-11-26T12:00:00.000Z'));
  const store = new MemoryCheckpointStore();
  await handoffSessions(store);
  await graphSessions(store);
  await teamSessions(store);
  records = {
    desk: await store.read('desk', { from: 'start' }),
    graph: await store.read('graph', { from: 'start' }),
    team: await store.read('team', { from: 'start' }),
    turns: await store.read('turns', { from: 'start' }),
  };
  if (process.env.BATON_WRITE_FIXTURE === '1') {
    writeFileSync(FIXTURE, `${JSON.stringify(records, null, 2)}\n`);
  }
});

afterAll(() => {
  vi.useRealTimers();
});

describe('the records of a known session', () => {
  it.each(['desk', 'graph', 'team', 'turns'])(
    'are byte for byte those of the fixture (%s)',
    (name) => {
      const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as typeof records;
      const written = records[name] ?? [];
      expect(written.map((r) => r.data)).toEqual((fixture[name] ?? []).map((r) => r.data));
      expect(written).toEqual(fixture[name]);
    },
  );
});
