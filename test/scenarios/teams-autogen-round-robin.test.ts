// RoundRobinGroupChat, ported from AutoGen's test_group_chat.py (behaviours, not code). Where
// AutoGen's numbers differ from API.md, API.md wins; comments name the AutoGen test of each case.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  type ChatAgent,
  type ChatMessage,
  FunctionalTermination,
  MaxMessageTermination,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  SessionBusyError,
  structuredMessage,
  type Task,
  TextMentionTermination,
  textMessage,
  tool,
} from '../../src/index.js';
import {
  abortingAgent,
  cyclic,
  drain,
  echoAgent,
  FlakyTermination,
  flakyAgent,
  outcome,
  shape,
  sources,
  structuredAgent,
  TASK,
  texts,
  types,
} from './teams-autogen-helpers.js';

const PROGRAM = 'Here is the program\n ```python\nprint("Hello, world!")\n```';

/** Stands in for AutoGen's CodeExecutorAgent: "runs" the program it was shown. */
const codeExecutor: ChatAgent = {
  name: 'code_executor',
  description: 'Runs the code it is shown.',
  respond: async () => ({
    chatMessage: textMessage({ source: 'code_executor', content: 'Hello, world!' }),
  }),
};

const codingTeam = () =>
  new RoundRobinGroupChat(
    [
      new Agent({
        name: 'coding_assistant',
        client: new ScriptedChatClient(cyclic([scriptedText(PROGRAM), scriptedText('TERMINATE')])),
      }),
      codeExecutor,
    ],
    { terminationCondition: new TextMentionTermination('TERMINATE') },
  );

const fourEchoes = () => ['agent_1', 'agent_2', 'agent_3', 'agent_4'].map((n) => echoAgent(n));

describe('RoundRobinGroupChat (AutoGen test_group_chat.py)', () => {
  // test_round_robin_group_chat
  it('speaks in order until TERMINATE; run, runStream, a TextMessage task and Console agree', async () => {
    const team = codingTeam();
    const result = await team.run(TASK);
    expect(types(result)).toEqual(['TextMessage', 'TextMessage', 'TextMessage', 'TextMessage']);
    expect(texts(result)).toEqual([TASK, PROGRAM, 'Hello, world!', 'TERMINATE']);
    expect(sources(result)).toEqual([
      'user',
      'coding_assistant',
      'code_executor',
      'coding_assistant',
    ]);
    expect(result.stopReason).toBe("Text 'TERMINATE' mentioned");
    expect(result.status).toBe('terminated');

    await team.reset();
    const { streamed, result: streamedResult } = await drain(team.runStream(TASK));
    expect(streamed.map(shape)).toEqual(result.messages.map(shape));
    expect(outcome(streamedResult)).toEqual(outcome(result));

    await team.reset();
    const fromMessage = await team.run(textMessage({ source: 'user', content: TASK }));
    expect(outcome(fromMessage)).toEqual(outcome(result));
  });

  // test_round_robin_group_chat_output_task_messages_false
  it('leaves the task out of the result and the stream with outputTaskMessages: false', async () => {
    const team = codingTeam();
    const result = await team.run(TASK, { outputTaskMessages: false });
    expect(texts(result)).toEqual([PROGRAM, 'Hello, world!', 'TERMINATE']);
    expect(result.stopReason).toBe("Text 'TERMINATE' mentioned");

    await team.reset();
    const streamed = await drain(team.runStream(TASK, { outputTaskMessages: false }));
    expect(streamed.streamed.map(shape)).toEqual(result.messages.map(shape));
    expect(outcome(streamed.result)).toEqual(outcome(result));

    await team.reset();
    const asMessage = await drain(
      team.runStream(textMessage({ source: 'user', content: TASK }), { outputTaskMessages: false }),
    );
    expect(asMessage.streamed.map(shape)).toEqual(result.messages.map(shape));
    expect(outcome(asMessage.result)).toEqual(outcome(result));
  });

  // test_round_robin_group_chat_state (parametrized over the task kinds)
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
  it.each(taskKinds)(
    'round-trips saveState() into a new team with the same agent names (%s task), which continues identically',
    async (_kind, task) => {
      const steps = [
        scriptedText('No facts'),
        scriptedText('No plan'),
        scriptedText("print('Hello, world!')"),
        scriptedText('TERMINATE'),
        scriptedText('More facts'),
        scriptedText('TERMINATE'),
      ];
      const client1 = new ScriptedChatClient(steps);
      const team1 = new RoundRobinGroupChat(
        [
          new Agent({ name: 'agent1', client: client1 }),
          new Agent({ name: 'agent2', client: client1 }),
        ],
        { terminationCondition: new TextMentionTermination('TERMINATE') },
      );
      const first = await team1.run(task());
      expect(sources(first).slice(-4)).toEqual(['agent1', 'agent2', 'agent1', 'agent2']);
      const state = await team1.saveState();

      const client2 = new ScriptedChatClient(steps.slice(4));
      const team2 = new RoundRobinGroupChat(
        [
          new Agent({ name: 'agent1', client: client2 }),
          new Agent({ name: 'agent2', client: client2 }),
        ],
        { terminationCondition: new TextMentionTermination('TERMINATE') },
      );
      await team2.loadState(JSON.parse(JSON.stringify(state)));
      expect(await team2.saveState()).toEqual(state);

      // Same speaker index, same thread: both teams go on with agent1 and send it the same view.
      const next1 = await team1.run('next');
      const next2 = await team2.run('next');
      expect(sources(next2)).toEqual(['user', 'agent1', 'agent2']);
      expect(next2.messages.map(shape)).toEqual(next1.messages.map(shape));
      expect(client2.calls).toEqual(client1.calls.slice(4));
    },
  );

  // test_round_robin_group_chat_with_tools
  it("shows a tool call, its execution and the summary as the tool agent's turn", async () => {
    const pass = tool({
      name: 'pass',
      description: 'pass function',
      parameters: z.object({ input: z.string() }),
      execute: async () => 'pass',
    });
    const client = new ScriptedChatClient(
      cyclic([
        scriptedToolCall('pass', { input: 'pass' }, '1'),
        scriptedText('Hello'),
        scriptedText('TERMINATE'),
      ]),
    );
    const team = new RoundRobinGroupChat(
      [new Agent({ name: 'tool_use_agent', client, tools: [pass] }), echoAgent('echo_agent')],
      { terminationCondition: new TextMentionTermination('TERMINATE') },
    );
    const result = await team.run(TASK);
    expect(types(result)).toEqual([
      'TextMessage',
      'ToolCallRequestEvent',
      'ToolCallExecutionEvent',
      'ToolCallSummaryMessage',
      'TextMessage',
      'TextMessage',
      'TextMessage',
      'TextMessage',
    ]);
    expect(result.messages[3]).toMatchObject({ content: 'pass', source: 'tool_use_agent' });
    expect(result.messages[7]).toMatchObject({ content: 'TERMINATE', source: 'tool_use_agent' });
    expect(result.stopReason).toBe("Text 'TERMINATE' mentioned");
    // The agent's next model call sees its call and the result (AutoGen checks its model context).
    const second = client.calls[1]?.messages ?? [];
    expect(second).toContainEqual(
      expect.objectContaining({
        role: 'assistant',
        toolCalls: [{ id: '1', name: 'pass', arguments: '{"input":"pass"}' }],
      }),
    );
    expect(second).toContainEqual({ role: 'tool', toolCallId: '1', content: 'pass' });

    await team.reset();
    const streamed = await drain(team.runStream(TASK));
    expect(streamed.streamed.map(shape)).toEqual(result.messages.map(shape));
    expect(outcome(streamed.result)).toEqual(outcome(result));
  });

  // test_round_robin_group_chat_with_resume_and_reset
  it('resumes with run() at the next speaker and starts over after reset()', async () => {
    const team = new RoundRobinGroupChat(fourEchoes(), {
      terminationCondition: new MaxMessageTermination(3),
    });
    const result = await team.run(TASK);
    expect(sources(result)).toEqual(['user', 'agent_1', 'agent_2']);
    expect(result.stopReason).toBe(
      'Maximum number of messages 3 reached, current message count: 3',
    );

    const resumed = await team.run();
    expect(sources(resumed)).toEqual(['agent_3', 'agent_4', 'agent_1']);
    expect(resumed.stopReason).toBe(
      'Maximum number of messages 3 reached, current message count: 3',
    );

    await team.reset();
    const again = await team.run(TASK);
    expect(sources(again)).toEqual(['user', 'agent_1', 'agent_2']);
    expect(again.stopReason).not.toBeNull();
  });

  // AutoGen semantics (test_swarm_pause_and_resume does the same for Swarm): a new task does not
  // move the speaker back to the first participant.
  it('keeps the next speaker when a new task arrives', async () => {
    const team = new RoundRobinGroupChat(fourEchoes(), {
      terminationCondition: new MaxMessageTermination(3),
    });
    await team.run(TASK);
    const next = await team.run('new task');
    expect(sources(next)).toEqual(['user', 'agent_3', 'agent_4']);
    expect(texts(next)[0]).toBe('new task');
  });

  // test_round_robin_group_chat_with_exception_raised_from_agent
  it("rejects run() with the agent's error and keeps the thread up to it", async () => {
    const team = new RoundRobinGroupChat(
      [echoAgent('agent_1'), flakyAgent('agent_2'), echoAgent('agent_3')],
      { terminationCondition: new MaxMessageTermination(3) },
    );
    const session = team.session('flaky');
    await expect(session.run(TASK)).rejects.toThrow('I am a flaky agent...');
    const thread = await session.messages();
    expect(thread.map((m) => [m.source, m.type])).toEqual([
      ['user', 'TextMessage'],
      ['agent_1', 'TextMessage'],
    ]);
  });

  // test_round_robin_group_chat_with_exception_raised_from_termination_condition
  it("rejects run() with the condition's error when it fails on the task", async () => {
    const team = new RoundRobinGroupChat(
      [echoAgent('agent_1'), flakyAgent('agent_2'), echoAgent('agent_3')],
      { terminationCondition: new FlakyTermination(1) },
    );
    await expect(team.run(TASK)).rejects.toThrow('I am a flaky termination...');
  });

  // API.md §5 "the thread up to the failure is kept"; AutoGen's manager appends a response to the
  // thread (and streams it) before it runs the condition on it.
  it('keeps the response a failing condition was checking in the thread', async () => {
    const later = new RoundRobinGroupChat([echoAgent('agent_1'), echoAgent('agent_2')], {
      terminationCondition: new FlakyTermination(2),
    });
    const session = later.session('flaky-condition');
    await expect(session.run(TASK)).rejects.toThrow('I am a flaky termination...');
    const thread = await session.messages();
    expect(thread.map((m) => m.source)).toEqual(['user', 'agent_1']);
  });

  // test_round_robin_group_chat_max_turn
  it("stops after maxTurns with the team's reason, resumes and resets", async () => {
    const team = new RoundRobinGroupChat(fourEchoes(), { maxTurns: 3 });
    const result = await team.run(TASK);
    expect(sources(result)).toEqual(['user', 'agent_1', 'agent_2', 'agent_3']);
    expect(result.stopReason).toBe('Maximum number of turns 3 reached.');
    expect(result.status).toBe('terminated');

    const resumed = await team.run();
    expect(sources(resumed)).toEqual(['agent_4', 'agent_1', 'agent_2']);
    expect(resumed.stopReason).toBe('Maximum number of turns 3 reached.');

    await team.reset();
    const again = await team.run(TASK);
    expect(sources(again)).toEqual(['user', 'agent_1', 'agent_2', 'agent_3']);
  });

  // API.md §5: when maxTurns and the condition fire on the same turn, the condition's reason wins.
  it("reports the condition's reason when it fires on the last allowed turn", async () => {
    const team = new RoundRobinGroupChat(fourEchoes(), {
      maxTurns: 2,
      terminationCondition: new MaxMessageTermination(3),
    });
    const result = await team.run(TASK);
    expect(sources(result)).toEqual(['user', 'agent_1', 'agent_2']);
    expect(result.stopReason).toBe(
      'Maximum number of messages 3 reached, current message count: 3',
    );
  });

  // test_round_robin_group_chat_cancellation (API.md §5: status `cancelled` instead of CancelledError)
  it('ends an aborted run as cancelled; run() redoes the interrupted turn and reaches maxTurns', async () => {
    const controller = new AbortController();
    const team = new RoundRobinGroupChat(
      [
        echoAgent('agent_1'),
        echoAgent('agent_2'),
        abortingAgent('agent_3', controller),
        echoAgent('agent_4'),
      ],
      { maxTurns: 1000 },
    );
    const session = team.session('cancel');
    const cancelled = await session.run(TASK, { signal: controller.signal });
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.stopReason).toBeNull();
    expect(sources(cancelled)).toEqual(['user', 'agent_1', 'agent_2']);
    expect((await session.info()).status).toBe('cancelled');
    // The interrupted turn is not recorded.
    expect((await session.messages()).map((m) => m.source)).toEqual(['user', 'agent_1', 'agent_2']);

    // Still can run again and finish: the turn counter was not reset, so 998 turns remain.
    const result = await session.run();
    expect(result.stopReason).toBe('Maximum number of turns 1000 reached.');
    expect(result.status).toBe('terminated');
    expect(result.messages).toHaveLength(998);
    expect(sources(result).slice(0, 3)).toEqual(['agent_3', 'agent_4', 'agent_1']);
  });

  // API.md §5: cancelling does not reset the condition either.
  it("keeps the condition's count across a cancelled run", async () => {
    const controller = new AbortController();
    const team = new RoundRobinGroupChat(
      [echoAgent('agent_1'), echoAgent('agent_2'), abortingAgent('agent_3', controller)],
      { terminationCondition: new MaxMessageTermination(5) },
    );
    const cancelled = await team.run(TASK, { signal: controller.signal });
    expect(cancelled.status).toBe('cancelled');
    const result = await team.run();
    expect(sources(result)).toEqual(['agent_3', 'agent_1']);
    expect(result.stopReason).toBe(
      'Maximum number of messages 5 reached, current message count: 5',
    );
  });

  // AutoGen raises "The team is already running"; API.md §5 names SessionBusyError.
  it('rejects a second run() while the first is running', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const waiting: ChatAgent = {
      name: 'waiting',
      description: 'answers when the test opens the gate',
      respond: async () => {
        await gate;
        return { chatMessage: textMessage({ source: 'waiting', content: 'done' }) };
      },
    };
    const team = new RoundRobinGroupChat([waiting], { maxTurns: 1 });
    const first = team.run(TASK);
    await expect(team.run('again')).rejects.toBeInstanceOf(SessionBusyError);
    release();
    expect((await first).stopReason).toBe('Maximum number of turns 1 reached.');
  });

  // API.md §5 (AutoGen's group chat manager does the same): the task is the first delta, then
  // each response is one delta, its inner events before its chat message.
  it('gives the condition the task, then one delta per response', async () => {
    const deltas: string[][] = [];
    const recording = new FunctionalTermination((delta) => {
      deltas.push(delta.map((m) => `${m.type}(${m.source})`));
      return false;
    });
    const pass = tool({
      name: 'pass',
      description: 'pass function',
      parameters: z.object({ input: z.string() }),
      execute: async () => 'pass',
    });
    const agent = new Agent({
      name: 'tool_use_agent',
      client: new ScriptedChatClient([scriptedToolCall('pass', { input: 'pass' }, '1')]),
      tools: [pass],
    });
    const team = new RoundRobinGroupChat([agent, echoAgent('echo_agent')], {
      terminationCondition: recording,
      maxTurns: 2,
    });
    await team.run([
      textMessage({ source: 'user', content: 'one' }),
      textMessage({ source: 'user', content: 'two' }),
    ]);
    expect(deltas).toEqual([
      ['TextMessage(user)', 'TextMessage(user)'],
      [
        'ToolCallRequestEvent(tool_use_agent)',
        'ToolCallExecutionEvent(tool_use_agent)',
        'ToolCallSummaryMessage(tool_use_agent)',
      ],
      ['TextMessage(echo_agent)'],
    ]);
  });

  // test_round_robin_group_chat_with_message_list
  it('takes a list of task messages: all of them are the first delta', async () => {
    const team = new RoundRobinGroupChat([echoAgent('Agent1'), echoAgent('Agent2')], {
      terminationCondition: new MaxMessageTermination(4),
    });
    const messages: ChatMessage[] = [
      textMessage({ source: 'user', content: 'Message 1' }),
      textMessage({ source: 'user', content: 'Message 2' }),
      textMessage({ source: 'user', content: 'Message 3' }),
    ];
    const result = await team.run(messages);
    expect(texts(result)).toEqual(['Message 1', 'Message 2', 'Message 3', 'Message 1']);
    expect(sources(result)).toEqual(['user', 'user', 'user', 'Agent1']);
    expect(result.stopReason).toBe(
      'Maximum number of messages 4 reached, current message count: 4',
    );

    await team.reset();
    const streamed = await drain(team.runStream(messages));
    expect(streamed.streamed.map(shape)).toEqual(result.messages.map(shape));
    expect(outcome(streamed.result)).toEqual(outcome(result));
  });

  // test_round_robin_group_chat_with_message_list, invalid input part. API.md is silent; AutoGen
  // rejects an empty task list ("Task list cannot be empty") and a list with a non-message.
  it('rejects an empty task list and a list holding something that is not a message', async () => {
    const team = new RoundRobinGroupChat([echoAgent('Agent1'), echoAgent('Agent2')], {
      terminationCondition: new MaxMessageTermination(4),
    });
    await expect(team.run([])).rejects.toThrow();
    await expect(team.run(['not a message'] as unknown as Task)).rejects.toThrow();
  });

  // test_message_type_auto_registration and test_structured_message_state_roundtrip
  it('carries StructuredMessages through the turns and through saveState()/loadState()', async () => {
    const team = new RoundRobinGroupChat([structuredAgent('structured'), echoAgent('echo')], {
      maxTurns: 2,
    });
    const result = await team.run('Say something structured');
    expect(types(result)).toEqual(['TextMessage', 'StructuredMessage', 'TextMessage']);
    expect(result.messages[1]).toMatchObject({ content: { message: 'Structured hello' } });

    const team1 = new RoundRobinGroupChat([structuredAgent('structured'), echoAgent('echo')], {
      terminationCondition: new MaxMessageTermination(2),
    });
    await team1.run('Say something structured');
    const state = await team1.saveState();
    const team2 = new RoundRobinGroupChat([structuredAgent('structured'), echoAgent('echo')], {
      terminationCondition: new MaxMessageTermination(2),
    });
    await team2.loadState(JSON.parse(JSON.stringify(state)));
    expect(await team2.saveState()).toEqual(state);
  });
});
