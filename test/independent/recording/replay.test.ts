// Independent suite for API.md §19: `session.record({redact})` and `replay(workflow, recording,
// {tools})`. Written from API.md alone. Readings where the page is open:
// - an agent turn is one agent response (a handoff is its agent's turn); a user reply is no turn;
// - a divergence's `expected`/`actual` for a speaker or a handoff are agent names; for a stop
//   reason the two reasons; for a tool the recorded model wanted that is gone, the tool's name and
//   null (no such call could be made);
// - for a speaker divergence, `agent` is the recorded speaker (the one who "should have");
// - changed instructions: `what` "instructions", `expected`/`actual` the two instruction texts.
import { describe, expect, it } from 'vitest';

import {
  Agent,
  approve,
  ConfigError,
  GraphBuilder,
  HandoffBuilder,
  MaxMessageTermination,
  RoundRobinGroupChat,
  ScriptedChatClient,
  TextMentionTermination,
  reject,
  replay,
} from '../../../src/index.js';
import { createWorkflow as transferDesk } from './fixtures/transfer-desk.js';
import { desk } from './support.js';

const SECRET = '4111111111111111';

async function recordTwoVisits() {
  const { workflow } = desk();
  const session = workflow.session('visits');
  const first = await session.run('my invoice 42 please');
  expect(first.pendingRequest!.prompt).toBe('Found: invoice 42 is paid (my invoice 42 please)');
  const second = await session.run('thanks');
  expect(second.pendingRequest!.prompt).toBe('Billing: thanks');
  return session.record();
}

describe('session.record (API.md §19)', () => {
  it('is JSON-safe and holds the inputs, the model answers and the tool results', async () => {
    const recording = await recordTwoVisits();
    const copy = JSON.parse(JSON.stringify(recording)) as unknown;
    expect(copy).toEqual(recording);
    const text = JSON.stringify(recording);
    for (const piece of [
      'my invoice 42 please',
      'thanks',
      'handoff_to_billing',
      'lookup',
      'invoice 42 is paid (my invoice 42 please)',
      'Found: invoice 42 is paid (my invoice 42 please)',
      'Billing: thanks',
    ]) {
      expect(text).toContain(piece);
    }
  });
});

describe('replay (API.md §19)', () => {
  it('an unchanged workflow replays ok, with the number of turns and no divergence', async () => {
    const recording = await recordTwoVisits();
    const { workflow, executions } = desk();
    const report = await replay(workflow, recording);
    expect(report).toEqual({ ok: true, turns: 4 });
    expect('divergence' in report).toBe(false);
    // Recorded tools: nothing ran for real.
    expect(executions).toEqual([]);
    // A recording that went through JSON replays the same.
    const fromJson = await replay(desk().workflow, JSON.parse(JSON.stringify(recording)));
    expect(fromJson).toEqual({ ok: true, turns: 4 });
  });

  it('an approval pause and its decision stay inside one turn', async () => {
    const { workflow } = desk();
    const session = workflow.session('approval');
    const paused = await session.run('refund please');
    expect(paused.pendingRequest!.kind).toBe('approval');
    const callId = paused.pendingRequest!.calls![0]!.id;
    const done = await session.run(approve(callId));
    expect(done.pendingRequest!.prompt).toBe('Refund: refunded 7');
    const recording = await session.record();
    const fresh = desk();
    expect(await replay(fresh.workflow, recording)).toEqual({ ok: true, turns: 2 });
    expect(fresh.executions).toEqual([]);
  });

  it('tools "live" runs the tools for real; "recorded" (default) does not', async () => {
    const recording = await recordTwoVisits();
    const recorded = desk();
    expect(await replay(recorded.workflow, recording, { tools: 'recorded' })).toEqual({
      ok: true,
      turns: 4,
    });
    expect(recorded.executions).toEqual([]);
    const live = desk();
    expect(await replay(live.workflow, recording, { tools: 'live' })).toEqual({
      ok: true,
      turns: 4,
    });
    expect(live.executions).toEqual(['lookup 42']);
  });

  it('a changed handoff target is reported at the turn of the agent that handed off', async () => {
    const original = transferDesk({ target: 'billing' });
    const session = original.session('transfer');
    const result = await session.run('my bill');
    expect(result.stopReason).toBe("'billing' answered");
    const recording = await session.record();
    expect(await replay(transferDesk({ target: 'billing' }), recording)).toEqual({
      ok: true,
      turns: 2,
    });
    const report = await replay(transferDesk({ target: 'tech' }), recording);
    expect(report.ok).toBe(false);
    expect(report.divergence).toEqual({
      turn: 1,
      agent: 'triage',
      what: 'handoff',
      expected: 'billing',
      actual: 'tech',
    });
  });

  it('a removed tool is a divergence at the turn whose recorded answer called it', async () => {
    const recording = await recordTwoVisits();
    const report = await replay(desk({ lookup: false }).workflow, recording);
    expect(report.ok).toBe(false);
    expect(report.divergence).toEqual({
      turn: 2,
      agent: 'billing',
      what: 'tool_call',
      expected: 'lookup',
      actual: null,
    });
  });

  it('changed routing is a speaker divergence', async () => {
    const recording = await recordTwoVisits();
    const report = await replay(desk({ routing: 'last_agent' }).workflow, recording);
    expect(report.ok).toBe(false);
    expect(report.divergence).toEqual({
      turn: 3,
      agent: 'triage',
      what: 'speaker',
      expected: 'triage',
      actual: 'billing',
    });
  });

  it('a changed termination condition is a stop_reason divergence', async () => {
    const team = (condition: MaxMessageTermination | TextMentionTermination) =>
      new RoundRobinGroupChat(
        [
          new Agent({
            name: 'a',
            client: new ScriptedChatClient(() => ({ content: 'a says hi' })),
          }),
          new Agent({ name: 'b', client: new ScriptedChatClient(() => ({ content: 'b DONE' })) }),
        ],
        { terminationCondition: condition },
      );
    const session = team(new TextMentionTermination('DONE')).session('stop');
    const result = await session.run('go');
    expect(result.stopReason).toBe("Text 'DONE' mentioned");
    const recording = await session.record();
    expect(await replay(team(new TextMentionTermination('DONE')), recording)).toEqual({
      ok: true,
      turns: 2,
    });
    const report = await replay(team(new MaxMessageTermination(3)), recording);
    expect(report.ok).toBe(false);
    expect(report.divergence).toEqual({
      turn: 2,
      agent: 'b',
      what: 'stop_reason',
      expected: "Text 'DONE' mentioned",
      actual: 'Maximum number of messages 3 reached, current message count: 3',
    });
  });

  it('a workflow with another set of participants is a ConfigError naming them', async () => {
    const recording = await recordTwoVisits();
    const error = await replay(desk({ tech: true }).workflow, recording).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('tech');
    expect((error as Error).message).toContain('billing');
    const swarmError = await replay(transferDesk(), recording).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(swarmError).toBeInstanceOf(ConfigError);
  });

  it('redact removes a secret from every text; the redacted recording still replays', async () => {
    const { workflow } = desk();
    const session = workflow.session('secret');
    const result = await session.run(`my invoice 42 card ${SECRET}`);
    expect(result.pendingRequest!.prompt).toBe(
      `Found: invoice 42 is paid (my invoice 42 card ${SECRET})`,
    );
    const recording = await session.record({
      redact: (text: string) => text.replaceAll(SECRET, '[card]'),
    });
    const text = JSON.stringify(recording);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('41111111');
    expect(text).toContain('my invoice 42 card [card]');
    expect(text).toContain('Found: invoice 42 is paid (my invoice 42 card [card])');
    const fresh = desk();
    expect(await replay(fresh.workflow, recording)).toEqual({ ok: true, turns: 2 });
    expect(fresh.executions).toEqual([]);
    // The unredacted recording still has it.
    expect(JSON.stringify(await session.record())).toContain(SECRET);
  });

  it('a rejected approval replays ok inside its turn', async () => {
    const { workflow, executions } = desk();
    const session = workflow.session('rejected');
    const paused = await session.run('refund please');
    const done = await session.run(reject(paused.pendingRequest!.calls![0]!.id, 'no'));
    expect(done.pendingRequest!.prompt).toBe(
      'Refund: Tool call "refund" was rejected by the user: no',
    );
    expect(executions).toEqual([]);
    const recording = await session.record();
    expect(await replay(desk().workflow, recording)).toEqual({ ok: true, turns: 2 });
  });

  it('changed instructions are a divergence with the recorded and the replayed text', async () => {
    const clerkDesk = (instructions: string) => {
      const clerk = new Agent({
        name: 'clerk',
        instructions,
        client: new ScriptedChatClient(() => ({ content: 'hello to you' })),
      });
      return new HandoffBuilder({ participants: [clerk] }).coordinator(clerk).build();
    };
    const session = clerkDesk('Be kind.').session('instructions');
    await session.run('hello');
    const recording = await session.record();
    expect(await replay(clerkDesk('Be kind.'), recording)).toEqual({ ok: true, turns: 1 });
    const report = await replay(clerkDesk('Be brief.'), recording);
    expect(report.ok).toBe(false);
    expect(report.divergence).toEqual({
      turn: 1,
      agent: 'clerk',
      what: 'instructions',
      expected: 'Be kind.',
      actual: 'Be brief.',
    });
  });

  it('redact also covers a decision’s reason; the recording replays', async () => {
    const { workflow } = desk();
    const session = workflow.session('secret-reason');
    const paused = await session.run('refund please');
    await session.run(reject(paused.pendingRequest!.calls![0]!.id, `card ${SECRET}`));
    const recording = await session.record({
      redact: (text: string) => text.replaceAll(SECRET, '[card]'),
    });
    const text = JSON.stringify(recording);
    expect(text).not.toContain(SECRET);
    expect(text).toContain('card [card]');
    expect(await replay(desk().workflow, recording)).toEqual({ ok: true, turns: 2 });
  });

  it('the same participants in another order are no ConfigError: a round robin diverges on the speaker', async () => {
    const agent = (name: string) =>
      new Agent({ name, client: new ScriptedChatClient(() => ({ content: `${name} here` })) });
    const team = (names: string[]) => new RoundRobinGroupChat(names.map(agent), { maxTurns: 2 });
    const session = team(['a', 'b']).session('order');
    const result = await session.run('go');
    expect(result.stopReason).toBe('Maximum number of turns 2 reached.');
    const recording = await session.record();
    expect(await replay(team(['a', 'b']), recording)).toEqual({ ok: true, turns: 2 });
    const report = await replay(team(['b', 'a']), recording);
    expect(report.ok).toBe(false);
    expect(report.divergence).toEqual({
      turn: 1,
      agent: 'a',
      what: 'speaker',
      expected: 'a',
      actual: 'b',
    });
  });

  it('a graph workflow replays ok; each node answer is a turn', async () => {
    const node = (name: string) =>
      new Agent({ name, client: new ScriptedChatClient(() => ({ content: `${name} done` })) });
    const graph = () => {
      const [w, c, e] = [node('writer'), node('critic'), node('editor')];
      return new GraphBuilder({ name: 'review' })
        .addNode(w)
        .addNode(c)
        .addNode(e)
        .addEdge(w, c)
        .addEdge(c, e)
        .build();
    };
    const session = graph().session('graph');
    const result = await session.run('draft');
    expect(result.stopReason).toBe('Digraph execution is complete');
    const recording = await session.record();
    expect(await replay(graph(), recording)).toEqual({ ok: true, turns: 3 });
  });
});
