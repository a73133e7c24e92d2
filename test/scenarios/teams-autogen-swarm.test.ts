// Swarm, ported from AutoGen's test_group_chat.py (behaviours, not code), plus the human-in-the-loop
// travel desk of AutoGen's Swarm tutorial (handoff to "user", HandoffTermination, resume).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  type ChatMessage,
  Handoff,
  HandoffTermination,
  handoffMessage,
  MaxMessageTermination,
  ScriptedChatClient,
  Swarm,
  scriptedText,
  scriptedToolCall,
  structuredMessage,
  type Task,
  TextMentionTermination,
  TextMessageTermination,
  textMessage,
  tool,
} from '../../src/index.js';
import {
  drain,
  handoffAgent,
  outcome,
  shape,
  sources,
  TASK,
  texts,
  types,
} from './teams-autogen-helpers.js';

/** AutoGen's three `_HandOffAgent`s, listed second, first, third: second_agent starts. */
const relay = (thirdTarget = 'first_agent') => [
  handoffAgent('second_agent', 'third_agent'),
  handoffAgent('first_agent', 'second_agent'),
  handoffAgent('third_agent', thirdTarget),
];

const tool1 = tool({
  name: 'tool1',
  description: 'tool 1',
  parameters: z.object({}),
  execute: async () => 'tool1',
});
const tool2 = tool({
  name: 'tool2',
  description: 'tool 2',
  parameters: z.object({}),
  execute: async () => 'tool2',
});

describe('Swarm (AutoGen test_group_chat.py)', () => {
  // test_swarm_handoff
  it('passes the floor to each handoff target, first participant first', async () => {
    const team = new Swarm(relay(), { terminationCondition: new MaxMessageTermination(6) });
    const result = await team.run('task');
    expect(types(result)).toEqual([
      'TextMessage',
      'HandoffMessage',
      'HandoffMessage',
      'HandoffMessage',
      'HandoffMessage',
      'HandoffMessage',
    ]);
    expect(texts(result)).toEqual([
      'task',
      'Transferred to third_agent.',
      'Transferred to first_agent.',
      'Transferred to second_agent.',
      'Transferred to third_agent.',
      'Transferred to first_agent.',
    ]);
    expect(result.stopReason).toBe(
      'Maximum number of messages 6 reached, current message count: 6',
    );

    await team.reset();
    const streamed = await drain(team.runStream('task'));
    expect(streamed.streamed.map(shape)).toEqual(result.messages.map(shape));
    expect(outcome(streamed.result)).toEqual(outcome(result));

    // Save and load into a new team with new agents of the same names.
    const state = await team.saveState();
    const team2 = new Swarm(relay(), { terminationCondition: new MaxMessageTermination(6) });
    await team2.loadState(JSON.parse(JSON.stringify(state)));
    expect(await team2.saveState()).toEqual(state);
    // The current speaker survived: both continue with first_agent, the latest handoff's target.
    const next1 = await team.run();
    const next2 = await team2.run();
    expect(next2.messages[0]).toMatchObject({ source: 'first_agent' });
    expect(next2.messages.map(shape)).toEqual(next1.messages.map(shape));
  });

  // test_swarm_handoff_state (parametrized over the task kinds)
  const taskKinds: [string, () => Task][] = [
    ['text', () => TASK],
    ['text_message', () => [textMessage({ source: 'user', content: TASK })]],
    [
      'structured_message',
      () => [
        structuredMessage({ source: 'user', content: { task: TASK, data: ['a', 'b', 'c'] } }),
        structuredMessage({ source: 'user', content: { task: TASK, data: 'a' } }),
      ],
    ],
  ];
  it.each(taskKinds)('round-trips saveState() deep-equal (%s task)', async (_kind, task) => {
    const team1 = new Swarm(relay(), { terminationCondition: new MaxMessageTermination(6) });
    await team1.run(task());
    const state = await team1.saveState();
    const team2 = new Swarm(relay(), { terminationCondition: new MaxMessageTermination(6) });
    await team2.loadState(JSON.parse(JSON.stringify(state)));
    expect(await team2.saveState()).toEqual(state);
  });

  // test_swarm_handoff_using_tool_calls
  it('turns a handoff tool call of an Agent into a HandoffMessage; an answer keeps the floor', async () => {
    const agent1 = new Agent({
      name: 'agent1',
      client: new ScriptedChatClient([
        scriptedToolCall('handoff_to_agent2', {}, '1'),
        scriptedText('Hello'),
        scriptedText('TERMINATE'),
      ]),
      handoffs: [
        new Handoff({ target: 'agent2', name: 'handoff_to_agent2', message: 'handoff to agent2' }),
      ],
    });
    const team = new Swarm([agent1, handoffAgent('agent2', 'agent1')], {
      terminationCondition: new TextMentionTermination('TERMINATE'),
    });
    const result = await team.run('task');
    expect(types(result)).toEqual([
      'TextMessage',
      'ToolCallRequestEvent',
      'ToolCallExecutionEvent',
      'HandoffMessage',
      'HandoffMessage',
      'TextMessage',
      'TextMessage',
    ]);
    expect(texts(result).slice(3)).toEqual([
      'handoff to agent2',
      'Transferred to agent1.',
      'Hello',
      'TERMINATE',
    ]);
    expect(sources(result)).toEqual([
      'user',
      'agent1',
      'agent1',
      'agent1',
      'agent2',
      'agent1',
      'agent1',
    ]);
    expect(result.stopReason).toBe("Text 'TERMINATE' mentioned");
  });

  // test_swarm_pause_and_resume
  it('stops after maxTurns and resumes with the current speaker, with or without a new task', async () => {
    const team = new Swarm(relay(), { maxTurns: 1 });
    const result = await team.run('task');
    expect(texts(result)).toEqual(['task', 'Transferred to third_agent.']);
    expect(result.stopReason).toBe('Maximum number of turns 1 reached.');

    const withTask = await team.run('new task');
    expect(types(withTask)).toEqual(['TextMessage', 'HandoffMessage']);
    expect(texts(withTask)).toEqual(['new task', 'Transferred to first_agent.']);

    const resumed = await team.run();
    expect(types(resumed)).toEqual(['HandoffMessage']);
    expect(texts(resumed)).toEqual(['Transferred to second_agent.']);
  });

  // test_swarm_with_parallel_tool_calls
  it('runs the tool calls made with a handoff and shows them to the target', async () => {
    const agent1 = new Agent({
      name: 'agent1',
      client: new ScriptedChatClient([
        {
          content: null,
          toolCalls: [
            { id: '1', name: 'tool1', arguments: '{}' },
            { id: '2', name: 'tool2', arguments: '{}' },
            { id: '3', name: 'handoff_to_agent2', arguments: '{}' },
          ],
        },
      ]),
      tools: [tool1, tool2],
      handoffs: [
        new Handoff({ target: 'agent2', name: 'handoff_to_agent2', message: 'handoff to agent2' }),
      ],
    });
    const agent2Client = new ScriptedChatClient([scriptedText('Hello'), scriptedText('TERMINATE')]);
    const agent2 = new Agent({ name: 'agent2', client: agent2Client });
    const team = new Swarm([agent1, agent2], {
      terminationCondition: new TextMentionTermination('TERMINATE'),
    });
    const result = await team.run('task');
    expect(types(result)).toEqual([
      'TextMessage',
      'ToolCallRequestEvent',
      'ToolCallExecutionEvent',
      'HandoffMessage',
      'TextMessage',
      'TextMessage',
    ]);
    expect(shape(result.messages[0] as ChatMessage)).toEqual({
      type: 'TextMessage',
      source: 'user',
      content: 'task',
      metadata: {},
    });
    expect(result.messages[2]).toMatchObject({
      content: [
        { callId: '1', name: 'tool1', content: 'tool1', isError: false },
        { callId: '2', name: 'tool2', content: 'tool2', isError: false },
        { callId: '3', name: 'handoff_to_agent2', content: 'handoff to agent2', isError: false },
      ],
    });
    const handoff = result.messages[3];
    expect(handoff).toMatchObject({
      type: 'HandoffMessage',
      source: 'agent1',
      target: 'agent2',
      content: 'handoff to agent2',
    });
    // The handoff carries the other calls and their results as its context (AutoGen: an
    // AssistantMessage and a FunctionExecutionResultMessage; here chat messages, API.md §1).
    const context = handoff?.type === 'HandoffMessage' ? (handoff.context ?? []) : [];
    const carried = context.flatMap((m) =>
      m.type === 'ToolCallSummaryMessage'
        ? [
            ...m.toolCalls.map((c) => `call ${c.id} ${c.name}`),
            ...m.results.map((r) => `result ${r.callId} ${r.content}`),
          ]
        : [],
    );
    expect(carried).toEqual(['call 1 tool1', 'call 2 tool2', 'result 1 tool1', 'result 2 tool2']);
    expect(
      result.messages
        .slice(4)
        .map((m) => [m.source, (m as ChatMessage & { content: string }).content]),
    ).toEqual([
      ['agent2', 'Hello'],
      ['agent2', 'TERMINATE'],
    ]);

    // agent2's model sees the task, then the two calls and their results (not the handoff call).
    const view = agent2Client.calls[0]?.messages ?? [];
    expect(view[0]).toMatchObject({ role: 'user', content: 'task' });
    // Another agent's calls reach the model as the text of a user turn that names it.
    expect(view).toContainEqual({
      role: 'user',
      content: '[agent1] called tool1({}) -> tool1\n[agent1] called tool2({}) -> tool2',
    });
    expect(JSON.stringify(view)).not.toContain('"handoff_to_agent2"');
  });

  // test_swarm_with_handoff_termination, handoff to a participant
  it('stops on HandoffTermination and resumes at its target, also with a new task', async () => {
    const team = new Swarm(relay(), {
      terminationCondition: new HandoffTermination('third_agent'),
    });
    const result = await team.run('task');
    expect(texts(result)).toEqual(['task', 'Transferred to third_agent.']);
    expect(result.stopReason).toBe('Handoff to third_agent from second_agent detected.');

    const resumed = await team.run();
    expect(types(resumed)).toEqual(['HandoffMessage', 'HandoffMessage', 'HandoffMessage']);
    expect(texts(resumed)).toEqual([
      'Transferred to first_agent.',
      'Transferred to second_agent.',
      'Transferred to third_agent.',
    ]);

    const withTask = await team.run('new task');
    expect(texts(withTask)).toEqual([
      'new task',
      'Transferred to first_agent.',
      'Transferred to second_agent.',
      'Transferred to third_agent.',
    ]);
  });

  // test_swarm_with_handoff_termination, handoff to a non-participant
  it('refuses to resume past a handoff outside the team until a HandoffMessage names a participant', async () => {
    const team = new Swarm(relay('non_existing_agent'), {
      terminationCondition: new HandoffTermination('non_existing_agent'),
    });
    const result = await team.run('task');
    expect(texts(result)).toEqual([
      'task',
      'Transferred to third_agent.',
      'Transferred to non_existing_agent.',
    ]);
    expect(result.stopReason).toBe('Handoff to non_existing_agent from third_agent detected.');

    const before = await team.saveState();
    for (const attempt of [() => team.run(), () => team.run('new task')]) {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      const message = (error as Error).message;
      for (const name of ['non_existing_agent', 'second_agent', 'first_agent', 'third_agent']) {
        expect(message).toContain(name);
      }
      expect(await team.saveState()).toEqual(before);
    }

    const resumed = await team.run(
      handoffMessage({ source: 'user', target: 'first_agent', content: 'Handoff to first_agent.' }),
    );
    expect(types(resumed)).toEqual([
      'HandoffMessage',
      'HandoffMessage',
      'HandoffMessage',
      'HandoffMessage',
    ]);
    expect(texts(resumed)).toEqual([
      'Handoff to first_agent.',
      'Transferred to second_agent.',
      'Transferred to third_agent.',
      'Transferred to non_existing_agent.',
    ]);
  });
});

describe('Swarm with the user in the loop (AutoGen Swarm tutorial)', () => {
  it('hands off to "user", stops on HandoffTermination("user") and resumes with the user\'s HandoffMessage', async () => {
    const refunded: string[] = [];
    const refundFlight = tool({
      name: 'refund_flight',
      description: 'Refunds a flight.',
      parameters: z.object({ flightId: z.string() }),
      execute: async ({ flightId }) => {
        refunded.push(flightId);
        return `Flight ${flightId} refunded`;
      },
    });
    const travelClient = new ScriptedChatClient([scriptedToolCall('handoff_to_flights_refunder')]);
    const refunderClient = new ScriptedChatClient([
      scriptedToolCall('handoff_to_user'),
      scriptedToolCall('refund_flight', { flightId: '507811' }),
      scriptedText('Your flight 507811 is refunded. TERMINATE'),
    ]);
    const travelAgent = new Agent({
      name: 'travel_agent',
      description: 'Plans travel and routes refunds.',
      client: travelClient,
      handoffs: ['flights_refunder', 'user'],
    });
    const refunder = new Agent({
      name: 'flights_refunder',
      description: 'Refunds flights.',
      client: refunderClient,
      tools: [refundFlight],
      handoffs: ['travel_agent', 'user'],
    });
    const team = new Swarm([travelAgent, refunder], {
      terminationCondition: new HandoffTermination('user').or(
        new TextMentionTermination('TERMINATE'),
      ),
    });

    const first = await team.run('I need to refund my flight.');
    expect(first.status).toBe('terminated');
    expect(first.stopReason).toBe('Handoff to user from flights_refunder detected.');
    const last = first.messages.at(-1);
    expect(last).toMatchObject({
      type: 'HandoffMessage',
      source: 'flights_refunder',
      target: 'user',
    });
    // handoffs: [...] gives the agent one tool per target.
    const offered = (travelClient.calls[0]?.tools ?? []).map((t) => t.name).sort();
    expect(offered).toEqual(['handoff_to_flights_refunder', 'handoff_to_user']);

    await expect(team.run('It is 507811')).rejects.toThrow(
      /"user".*travel_agent.*flights_refunder/s,
    );

    const second = await team.run(
      handoffMessage({
        source: 'user',
        target: 'flights_refunder',
        content: 'Sure, it is 507811.',
      }),
    );
    expect(second.messages[0]).toMatchObject({ type: 'HandoffMessage', source: 'user' });
    expect(sources(second).slice(1)).toEqual(Array(4).fill('flights_refunder'));
    expect(types(second)).toEqual([
      'HandoffMessage',
      'ToolCallRequestEvent',
      'ToolCallExecutionEvent',
      'ToolCallSummaryMessage',
      'TextMessage',
    ]);
    expect(second.stopReason).toBe("Text 'TERMINATE' mentioned");
    expect(refunded).toEqual(['507811']);
    expect(JSON.stringify(refunderClient.calls[1]?.messages)).toContain('Sure, it is 507811.');
  });

  it('keeps the floor with an agent that never hands off until maxTurns or TextMessageTermination', async () => {
    const chatty = () =>
      new Agent({
        name: 'chatty',
        client: new ScriptedChatClient([
          scriptedText('one'),
          scriptedText('two'),
          scriptedText('three'),
        ]),
      });
    const bounded = new Swarm([chatty(), handoffAgent('other', 'chatty')], { maxTurns: 3 });
    const result = await bounded.run('talk');
    expect(sources(result)).toEqual(['user', 'chatty', 'chatty', 'chatty']);
    expect(result.stopReason).toBe('Maximum number of turns 3 reached.');

    const stopped = new Swarm([chatty(), handoffAgent('other', 'chatty')], {
      terminationCondition: new TextMessageTermination('chatty'),
    });
    const once = await stopped.run('talk');
    expect(texts(once)).toEqual(['talk', 'one']);
    expect(once.stopReason).toBe("Text message received from 'chatty'");
  });
});
