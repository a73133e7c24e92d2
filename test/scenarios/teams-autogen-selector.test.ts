// SelectorGroupChat, ported from AutoGen's test_group_chat.py (behaviours, not code). AutoGen's
// selector answers are ReplayChatCompletionClient texts; here they are ScriptedChatClient steps.
import { describe, expect, it } from 'vitest';

import {
  Agent,
  type AgentMessage,
  MaxMessageTermination,
  ScriptedChatClient,
  SelectorGroupChat,
  StopMessageTermination,
  scriptedText,
  TextMentionTermination,
} from '../../src/index.js';
import {
  drain,
  echoAgent,
  outcome,
  shape,
  sources,
  stopAgent,
  TASK,
  texts,
  types,
} from './teams-autogen-helpers.js';

const picks = (...names: string[]) => new ScriptedChatClient(names.map((n) => scriptedText(n)));

describe('SelectorGroupChat (AutoGen test_group_chat.py)', () => {
  // test_selector_group_chat
  it('lets the model pick each speaker until TERMINATE; run and runStream agree', async () => {
    const make = () => {
      const client = picks('agent3', 'agent2', 'agent1', 'agent2', 'agent1');
      const team = new SelectorGroupChat(
        [stopAgent('agent1', 2), echoAgent('agent2'), echoAgent('agent3')],
        { client, terminationCondition: new TextMentionTermination('TERMINATE') },
      );
      return { client, team };
    };
    const { client, team } = make();
    const result = await team.run(TASK);
    expect(types(result)).toEqual([
      'TextMessage',
      'TextMessage',
      'TextMessage',
      'TextMessage',
      'TextMessage',
      'StopMessage',
    ]);
    expect(result.messages[0]).toMatchObject({ content: TASK, source: 'user' });
    expect(sources(result)).toEqual(['user', 'agent3', 'agent2', 'agent1', 'agent2', 'agent1']);
    expect(result.stopReason).toBe("Text 'TERMINATE' mentioned");
    expect(client.calls).toHaveLength(5);

    // The model chooses from the participants' names and descriptions.
    const prompt = JSON.stringify(client.calls[0]?.messages);
    for (const name of ['agent1', 'agent2', 'agent3']) expect(prompt).toContain(name);
    for (const description of ['stop agent agent1', 'echo agent agent2', 'echo agent agent3']) {
      expect(prompt).toContain(description);
    }

    const fresh = make();
    const streamed = await drain(fresh.team.runStream(TASK));
    expect(streamed.streamed.map(shape)).toEqual(result.messages.map(shape));
    expect(outcome(streamed.result)).toEqual(outcome(result));
  });

  // test_selector_group_chat_state (three participants, so every selection asks the model)
  it('round-trips saveState() into a new team; the previous speaker survives and is not picked again', async () => {
    const make = (selector: ScriptedChatClient) =>
      new SelectorGroupChat(
        [
          new Agent({
            name: 'agent1',
            client: new ScriptedChatClient([
              scriptedText('No facts'),
              scriptedText("print('Hello, world!')"),
            ]),
          }),
          new Agent({
            name: 'agent2',
            client: new ScriptedChatClient([scriptedText('No plan'), scriptedText('TERMINATE')]),
          }),
          stopAgent('agent3', 1),
        ],
        { client: selector, terminationCondition: new TextMentionTermination('TERMINATE') },
      );
    const selector1 = picks('agent1', 'agent2', 'agent1', 'agent2', 'agent3');
    const team1 = make(selector1);
    const first = await team1.run(TASK);
    expect(sources(first)).toEqual(['user', 'agent1', 'agent2', 'agent1', 'agent2']);
    const state = await team1.saveState();

    const selector2 = picks('agent3');
    const team2 = make(selector2);
    await team2.loadState(JSON.parse(JSON.stringify(state)));
    expect(await team2.saveState()).toEqual(state);

    const next1 = await team1.run();
    const next2 = await team2.run();
    expect(sources(next2)).toEqual(['agent3']);
    expect(next2.messages.map(shape)).toEqual(next1.messages.map(shape));
    // Same thread and same previous speaker (agent2): the model is asked the same question.
    expect(selector2.calls).toEqual(selector1.calls.slice(4));
    expect(next2.stopReason).toBe("Text 'TERMINATE' mentioned");
  });

  // test_selector_group_chat_two_speakers. API.md is silent; in AutoGen, when excluding the
  // previous speaker leaves one candidate, that candidate speaks without asking the model.
  it('asks the model only when more than one candidate is left', async () => {
    const client = picks('agent2');
    const team = new SelectorGroupChat([stopAgent('agent1', 2), echoAgent('agent2')], {
      client,
      terminationCondition: new TextMentionTermination('TERMINATE'),
    });
    const result = await team.run(TASK);
    expect(sources(result)).toEqual(['user', 'agent2', 'agent1', 'agent2', 'agent1']);
    expect(result.stopReason).toBe("Text 'TERMINATE' mentioned");
    expect(client.calls).toHaveLength(1);
  });

  // test_selector_group_chat_two_speakers_allow_repeated
  it('lets a speaker go again with allowRepeatedSpeaker', async () => {
    const make = () =>
      new SelectorGroupChat([stopAgent('agent1', 1), echoAgent('agent2')], {
        client: picks('agent2', 'agent2', 'agent1'),
        terminationCondition: new TextMentionTermination('TERMINATE'),
        allowRepeatedSpeaker: true,
      });
    const result = await make().run(TASK);
    expect(sources(result)).toEqual(['user', 'agent2', 'agent2', 'agent1']);
    expect(result.stopReason).toBe("Text 'TERMINATE' mentioned");
    const streamed = await drain(make().runStream(TASK));
    expect(outcome(streamed.result)).toEqual(outcome(result));
  });

  // test_selector_group_chat_succcess_after_2_attempts
  it('retries when the model names two participants', async () => {
    const client = picks('agent2, agent3', 'agent2');
    const team = new SelectorGroupChat(
      [stopAgent('agent1', 1), echoAgent('agent2'), echoAgent('agent3')],
      { client, maxTurns: 1 },
    );
    const result = await team.run(TASK);
    expect(sources(result)).toEqual(['user', 'agent2']);
    expect(result.stopReason).toBe('Maximum number of turns 1 reached.');
    expect(client.calls).toHaveLength(2);
  });

  // test_selector_group_chat_fall_back_to_first_after_3_attempts
  it('falls back to the first participant after 3 invalid answers when nobody has spoken', async () => {
    const client = picks('agent2, agent3', 'agent5', 'agent3, agent1');
    const team = new SelectorGroupChat(
      [stopAgent('agent1', 1), echoAgent('agent2'), echoAgent('agent3')],
      { client, maxTurns: 1 },
    );
    const result = await team.run(TASK);
    expect(sources(result)).toEqual(['user', 'agent1']);
    expect(client.calls).toHaveLength(3);
  });

  // test_selector_group_chat_fall_back_to_previous_after_3_attempts
  it('falls back to the previous speaker after 3 answers naming only the excluded speaker', async () => {
    const client = picks('agent2', 'agent2', 'agent2', 'agent2');
    const team = new SelectorGroupChat(
      [stopAgent('agent1', 1), echoAgent('agent2'), echoAgent('agent3')],
      { client, maxTurns: 2 },
    );
    const result = await team.run(TASK);
    expect(sources(result)).toEqual(['user', 'agent2', 'agent2']);
    expect(client.calls).toHaveLength(4);
  });

  // test_selector_group_chat_custom_selector
  it('asks selectorFunc first and the model when it returns nothing', async () => {
    const client = picks('agent3');
    const seen: number[] = [];
    const select = (messages: readonly AgentMessage[]): string | null => {
      seen.push(messages.length);
      const last = messages.at(-1);
      if (messages.length === 0) return 'agent1';
      if (last?.source === 'agent1') return 'agent2';
      if (last?.source === 'agent2') return null;
      if (last?.source === 'agent3') return 'agent4';
      return 'agent1';
    };
    const team = new SelectorGroupChat(
      ['agent1', 'agent2', 'agent3', 'agent4'].map((n) => echoAgent(n)),
      { client, selectorFunc: select, terminationCondition: new MaxMessageTermination(6) },
    );
    const result = await team.run('task');
    expect(sources(result)).toEqual(['user', 'agent1', 'agent2', 'agent3', 'agent4', 'agent1']);
    expect(result.stopReason).toBe(
      'Maximum number of messages 6 reached, current message count: 6',
    );
    expect(client.calls).toHaveLength(1);
    // selectorFunc receives the thread: the task, then one more message per turn.
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  // API.md is silent; AutoGen raises when selector_func names someone outside the team.
  it('rejects run() when selectorFunc names a non-participant', async () => {
    const team = new SelectorGroupChat([echoAgent('agent1'), echoAgent('agent2')], {
      selectorFunc: () => 'agent9',
      maxTurns: 2,
    });
    await expect(team.run('task')).rejects.toThrow(/agent9/);
  });

  // test_selector_group_chat_streaming (the selection part): the model may answer in a sentence.
  it('reads the speaker from an answer that mentions one name', async () => {
    const team = new SelectorGroupChat([stopAgent('agent2', 0), echoAgent('agent3')], {
      client: picks('the agent should be agent2'),
      terminationCondition: new StopMessageTermination(),
    });
    const result = await team.run(TASK);
    expect(types(result)).toEqual(['TextMessage', 'StopMessage']);
    expect(sources(result)).toEqual(['user', 'agent2']);
    expect(texts(result)[1]).toBe('TERMINATE');
    expect(result.stopReason).toBe('Stop message received');
  });
});
