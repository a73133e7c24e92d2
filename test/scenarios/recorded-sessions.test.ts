import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  ConfigError,
  FileCheckpointStore,
  MemoryCheckpointStore,
  type Recording,
  replay,
  TextMentionTermination,
} from '../../src/index.js';
import { desk, refundConversation } from '../support/recorded-desk.js';

// API.md §19: a real desk conversation (handoffs, a tool, an approval, a stop) is recorded and
// replayed; each change of the workflow is reported where it first shows.

async function recorded(): Promise<Recording> {
  const workflow = desk();
  await refundConversation(workflow, 'refund');
  return workflow.session('refund').record();
}

/** The escalation conversation: triage → billing → (escalate) tech, who asks the user. */
async function escalation(): Promise<Recording> {
  const workflow = desk();
  const result = await workflow.session('broken').run('my router is broken');
  expect(result.status).toBe('awaiting_input');
  return workflow.session('broken').record();
}

describe('session.record()', () => {
  it('holds the inputs and decisions, the answers, the results and the path', async () => {
    const recording = await recorded();
    expect(recording.participants.map((p) => p.name)).toEqual([
      'triage',
      'billing',
      'tech',
      'sales',
    ]);
    expect(
      recording.turns.map((t) => ({
        agent: t.agent,
        answers: t.answers.map((a) => a.content ?? a.toolCalls.map((c) => c.name).join()),
        results: t.results.map((r) => r.content),
        handoff: t.handoff,
        approvals: t.approvals?.map((c) => c.id),
        message: t.message,
      })),
    ).toEqual([
      { agent: 'triage', answers: ['How can I help?'], results: [], message: 'TextMessage' },
      {
        agent: 'triage',
        answers: ['handoff_to_billing'],
        results: ['Transferred to billing, adopting the role of billing immediately.'],
        handoff: 'billing',
        message: 'HandoffMessage',
      },
      {
        agent: 'billing',
        answers: [
          'lookup_invoice',
          'Invoice INV-7 of ann@example.com: $80, paid. Shall I refund it?',
        ],
        results: ['Invoice INV-7 of ann@example.com: $80, paid.'],
        message: 'TextMessage',
      },
      {
        agent: 'billing',
        answers: ['refund', 'Refunded INV-7. DONE'],
        results: ['Refunded INV-7.'],
        approvals: ['b2'],
        message: 'TextMessage',
      },
    ]);
    expect(recording.turns[3]?.answers[1]?.usage).toEqual({
      promptTokens: 30,
      completionTokens: 5,
    });
    expect(
      recording.runs.map((r) => ({
        input: r.input?.map((m) => (m.type === 'TextMessage' ? m.content : m.type)),
        turns: r.turns,
        status: r.status,
        stopReason: r.stopReason,
      })),
    ).toEqual([
      { input: ['hello'], turns: 1, status: 'awaiting_input', stopReason: null },
      {
        input: ['I want a refund for an invoice'],
        turns: 3,
        status: 'awaiting_input',
        stopReason: null,
      },
      { input: ['INV-7 please'], turns: 4, status: 'awaiting_input', stopReason: null },
      {
        input: ['ToolApprovalResponseEvent'],
        turns: 4,
        status: 'terminated',
        stopReason: "Text 'DONE' mentioned",
      },
    ]);
    expect(JSON.parse(JSON.stringify(recording))).toEqual(recording);
  });

  it('reads a stored session through a new workflow object', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'baton-record-'));
    try {
      await refundConversation(desk({ store: new FileCheckpointStore(directory) }), 'stored');
      const fresh = desk({ store: new FileCheckpointStore(directory) });
      const recording = await fresh.session('stored').record();
      expect(recording.turns.map((t) => t.agent)).toEqual([
        'triage',
        'triage',
        'billing',
        'billing',
      ]);
      expect(await replay(desk(), recording)).toEqual({ ok: true, turns: 4 });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('refuses a redact that is not a function, and a workflow that does not play the session', async () => {
    const workflow = desk();
    await refundConversation(workflow, 'checked');
    await expect(workflow.session('checked').record({ redact: 'x' as never })).rejects.toThrow(
      'session.record(): redact must be a function (text) => text.',
    );
    const store = new MemoryCheckpointStore();
    await refundConversation(desk({ store }), 'moved');
    const changed = desk({ store, withoutLookup: true }).session('moved').record();
    await expect(changed).rejects.toBeInstanceOf(ConfigError);
    await expect(changed).rejects.toThrow(
      'session("moved").record(): this workflow does not play the session again: tool_call differs ' +
        'at turn 3 (billing). Record a session with the workflow that ran it.',
    );
  });

  it('applies redact to every text, and the redacted recording still replays', async () => {
    const workflow = desk();
    await refundConversation(workflow, 'redacted');
    const redact = (text: string) =>
      text.replaceAll('ann@example.com', '[email]').replaceAll('INV-7', '[invoice]');
    const recording = await workflow.session('redacted').record({ redact });
    const json = JSON.stringify(recording);
    expect(json).not.toContain('ann@example.com');
    expect(json).not.toContain('INV-7');
    expect(recording.turns[2]?.answers[0]?.toolCalls[0]?.arguments).toBe(
      '{"invoiceId":"[invoice]"}',
    );
    expect(recording.turns[2]?.results[0]?.content).toBe(
      'Invoice [invoice] of [email]: $80, paid.',
    );
    expect(recording.runs[2]?.input).toMatchObject([{ content: '[invoice] please' }]);
    expect(await replay(desk(), recording)).toEqual({ ok: true, turns: 4 });
  });
});

describe('replay()', () => {
  it('plays the recording again: ok, with every turn', async () => {
    const recording = await recorded();
    expect(await replay(desk(), recording)).toEqual({ ok: true, turns: 4 });
    expect(await replay(desk(), JSON.parse(JSON.stringify(recording)))).toEqual({
      ok: true,
      turns: 4,
    });
  });

  it('runs the tools for real with tools: "live" and checks their results', async () => {
    const recording = await recorded();
    const executed: string[] = [];
    expect(await replay(desk({ executed }), recording, { tools: 'live' })).toEqual({
      ok: true,
      turns: 4,
    });
    expect(executed).toEqual(['lookup INV-7']);
    expect(await replay(desk({ amount: 90 }), recording, { tools: 'live' })).toEqual({
      ok: false,
      turns: 3,
      divergence: {
        turn: 3,
        agent: 'billing',
        what: 'tool_result',
        expected: 'Invoice INV-7 of ann@example.com: $80, paid.',
        actual: 'Invoice INV-7 of ann@example.com: $90, paid.',
      },
    });
    // Recorded tools: the tool is not run, so its new answer does not matter.
    const untouched: string[] = [];
    expect(await replay(desk({ amount: 90, executed: untouched }), recording)).toEqual({
      ok: true,
      turns: 4,
    });
    expect(untouched).toEqual([]);
  });

  it("reports changed instructions at the agent's first turn", async () => {
    const recording = await recorded();
    expect(
      await replay(desk({ billingInstructions: 'Refund invoices twice.' }), recording),
    ).toEqual({
      ok: false,
      turns: 3,
      divergence: {
        turn: 3,
        agent: 'billing',
        what: 'instructions',
        expected: 'Refund invoices.',
        actual: 'Refund invoices twice.',
      },
    });
  });

  it('reports a changed handoff target at the turn of the agent that handed off', async () => {
    const recording = await escalation();
    expect(recording.turns.map((t) => [t.agent, t.handoff ?? null])).toEqual([
      ['triage', 'billing'],
      ['billing', 'tech'],
      ['tech', null],
    ]);
    expect(await replay(desk(), recording)).toEqual({ ok: true, turns: 3 });
    expect(await replay(desk({ escalateTo: 'sales' }), recording)).toEqual({
      ok: false,
      turns: 2,
      divergence: { turn: 2, agent: 'billing', what: 'handoff', expected: 'tech', actual: 'sales' },
    });
  });

  it('reports a removed tool where the recorded answer calls it', async () => {
    const recording = await recorded();
    expect(await replay(desk({ withoutLookup: true }), recording)).toEqual({
      ok: false,
      turns: 3,
      divergence: {
        turn: 3,
        agent: 'billing',
        what: 'tool_call',
        expected: 'lookup_invoice',
        actual: null,
      },
    });
  });

  it('reports a changed termination condition as a status or a stop reason', async () => {
    const recording = await recorded();
    expect(await replay(desk({ stop: new TextMentionTermination('NEVER') }), recording)).toEqual({
      ok: false,
      turns: 4,
      divergence: {
        turn: 4,
        agent: 'billing',
        what: 'status',
        expected: 'terminated',
        actual: 'awaiting_input',
      },
    });
    expect(await replay(desk({ stop: new TextMentionTermination('Refunded') }), recording)).toEqual(
      {
        ok: false,
        turns: 4,
        divergence: {
          turn: 4,
          agent: 'billing',
          what: 'stop_reason',
          expected: "Text 'DONE' mentioned",
          actual: "Text 'Refunded' mentioned",
        },
      },
    );
    // Fires earlier: the recorded session went on after turn 3.
    expect(await replay(desk({ stop: new TextMentionTermination('paid') }), recording)).toEqual({
      ok: false,
      turns: 3,
      divergence: {
        turn: 3,
        agent: 'billing',
        what: 'status',
        expected: 'awaiting_input',
        actual: 'terminated',
      },
    });
  });

  it("leaves the workflow's store and sessions untouched", async () => {
    const recording = await recorded();
    const store = new MemoryCheckpointStore();
    const workflow = desk({ store });
    expect(await replay(workflow, recording)).toEqual({ ok: true, turns: 4 });
    expect(await store.list()).toEqual({ sessions: [] });
    expect(await workflow.session(recording.sessionId).messages()).toEqual([]);
  });

  it('refuses a recording of a workflow with other participants, naming them', async () => {
    const recording = await recorded();
    const other = { ...recording, participants: recording.participants.slice(0, 3) };
    const refused = replay(desk(), other);
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(
      'replay(): the recording of session "refund" was made by a workflow with participants ' +
        '"billing", "tech", "triage", and this workflow has "billing", "sales", "tech", "triage". ' +
        'Replay it with the workflow that recorded it, or record the session again.',
    );
    await expect(replay(desk(), recording, { tools: 'mocked' as never })).rejects.toThrow(
      'replay(): tools must be "recorded" or "live", got "mocked".',
    );
    await expect(replay(desk(), { ...recording, turns: 'none' } as never)).rejects.toThrow(
      'replay(): the recording is not valid (turns: Invalid input: expected array, received string).',
    );
  });
});
