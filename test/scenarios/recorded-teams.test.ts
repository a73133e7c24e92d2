import { describe, expect, it } from 'vitest';

import {
  Agent,
  type ChatClient,
  type Recording,
  GraphBuilder,
  HandoffBuilder,
  HandoffTermination,
  handoffMessage,
  replay,
  RoundRobinGroupChat,
  ScriptedChatClient,
  SelectorGroupChat,
  scriptedText,
  scriptedToolCall,
  Swarm,
} from '../../src/index.js';

// API.md §19 beyond the handoff desk: teams, graphs, stops by maxTurns resumed without a task,
// and a cancelled run.

const texter = (name: string) =>
  new Agent({ name, client: new ScriptedChatClient((_r, i) => scriptedText(`${name} ${i}`)) });

const runsOf = (recording: Recording) =>
  recording.runs.map((r) => [r.input?.length ?? null, r.turns, r.status, r.stopReason]);

describe('recording teams and graphs', () => {
  it('replays a round robin stopped by maxTurns and resumed without a task', async () => {
    const team = () => new RoundRobinGroupChat([texter('a'), texter('b')], { maxTurns: 3 });
    const session = team().session('relay');
    await session.run('go');
    await session.run();
    await session.run('more');
    const recording = await session.record();
    const stop = 'Maximum number of turns 3 reached.';
    expect(runsOf(recording)).toEqual([
      [1, 3, 'terminated', stop],
      [null, 6, 'terminated', stop],
      [1, 9, 'terminated', stop],
    ]);
    expect(await replay(team(), recording)).toEqual({ ok: true, turns: 9 });
    const swapped = new RoundRobinGroupChat([texter('b'), texter('a')], { maxTurns: 3 });
    expect(await replay(swapped, recording)).toEqual({
      ok: false,
      turns: 1,
      divergence: { turn: 1, agent: 'a', what: 'speaker', expected: 'a', actual: 'b' },
    });
    const shorter = new RoundRobinGroupChat([texter('a'), texter('b')], { maxTurns: 2 });
    expect(await replay(shorter, recording)).toEqual({
      ok: false,
      turns: 2,
      divergence: {
        turn: 2,
        agent: 'b',
        what: 'status',
        expected: 'running',
        actual: 'terminated',
      },
    });
  });

  it('replays a swarm resumed by a handoff from the user', async () => {
    const swarm = () =>
      new Swarm(
        [
          new Agent({
            name: 'a',
            handoffs: ['b', 'user'],
            client: new ScriptedChatClient([scriptedToolCall('handoff_to_b', {}, 'a1')]),
          }),
          new Agent({
            name: 'b',
            handoffs: ['user'],
            client: new ScriptedChatClient((_r, i) =>
              scriptedToolCall('handoff_to_user', {}, `b${i}`),
            ),
          }),
        ],
        { terminationCondition: new HandoffTermination('user') },
      );
    const session = swarm().session('swarm');
    await session.run('go');
    await session.run(handoffMessage({ source: 'user', target: 'b', content: 'again' }));
    const recording = await session.record();
    expect(recording.turns.map((t) => [t.agent, t.handoff])).toEqual([
      ['a', 'b'],
      ['b', 'user'],
      ['b', 'user'],
    ]);
    expect(await replay(swarm(), recording)).toEqual({ ok: true, turns: 3 });
  });

  it('replays a graph whose fan-out answers in one step', async () => {
    const graph = () =>
      new GraphBuilder({ name: 'fan' })
        .addNode(texter('w'))
        .addNode(texter('x'))
        .addNode(texter('y'))
        .addEdge('w', ['x', 'y'])
        .build();
    const session = graph().session('fan');
    await session.run('go');
    const recording = await session.record();
    expect(recording.turns.map((t) => t.agent)).toEqual(['w', 'x', 'y']);
    expect(runsOf(recording)).toEqual([[1, 3, 'terminated', 'Digraph execution is complete']]);
    expect(await replay(graph(), recording)).toEqual({ ok: true, turns: 3 });
  });

  it('cancels a replayed run where the recorded one was cancelled', async () => {
    let started: () => void = () => {};
    const waiting = new Promise<void>((resolve) => (started = resolve));
    const hanging: ChatClient = {
      create: (request) =>
        new Promise((_resolve, reject) => {
          started();
          request.signal?.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    };
    const team = () =>
      new RoundRobinGroupChat([texter('a'), new Agent({ name: 'b', client: hanging })], {
        maxTurns: 3,
      });
    const session = team().session('cut');
    const controller = new AbortController();
    const run = session.run('go', { signal: controller.signal });
    await waiting;
    controller.abort();
    expect((await run).status).toBe('cancelled');
    const recording = await session.record();
    expect(runsOf(recording)).toEqual([[1, 1, 'cancelled', null]]);
    expect(await replay(team(), recording)).toEqual({ ok: true, turns: 1 });
  });
});

describe('recording a selector team', () => {
  it("replays the selector's choices as recorded, without calling its model", async () => {
    const picks = ['b', 'a'];
    const team = (selector: ScriptedChatClient) =>
      new SelectorGroupChat([texter('a'), texter('b')], { client: selector, maxTurns: 2 });
    const session = team(new ScriptedChatClient(picks.map((p) => scriptedText(p)))).session('s');
    await session.run('go');
    const recording = await session.record();
    expect(recording.turns.map((t) => t.agent)).toEqual(['b', 'a']);
    const unused = new ScriptedChatClient([]);
    expect(await replay(team(unused), recording)).toEqual({ ok: true, turns: 2 });
    expect(unused.calls).toEqual([]);
  });
});

describe('recording an autonomous specialist', () => {
  it('leaves the prompts the workflow adds out of the inputs, and replays', async () => {
    const desk = () =>
      new HandoffBuilder({
        participants: [
          new Agent({
            name: 'triage',
            client: new ScriptedChatClient((_r, i) =>
              scriptedToolCall('handoff_to_worker', {}, `t${i}`),
            ),
          }),
          texter('worker'),
        ],
      })
        .coordinator('triage')
        .withAutonomousMode({ agents: ['worker'], turnLimits: { worker: 3 } })
        .build();
    const session = desk().session('auto');
    await session.run('work on it');
    const recording = await session.record();
    expect(recording.runs.map((r) => [r.input?.length ?? null, r.turns, r.status])).toEqual([
      [1, 4, 'awaiting_input'],
    ]);
    expect(await replay(desk(), recording)).toEqual({ ok: true, turns: 4 });
  });
});
