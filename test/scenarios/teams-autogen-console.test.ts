// Console over team streams, ported from the "Test Console" parts of AutoGen's test_group_chat.py
// (test_round_robin_group_chat_with_tools, test_selector_group_chat, test_swarm_handoff_using_tool_calls)
// plus the output format of API.md §8.
import { describe, expect, it } from 'vitest';

import {
  Agent,
  Console,
  MaxMessageTermination,
  RoundRobinGroupChat,
  ScriptedChatClient,
  SelectorGroupChat,
  scriptedText,
  TextMentionTermination,
} from '../../src/index.js';
import { echoAgent, lineSink, outcome, stopAgent, TASK } from './teams-autogen-helpers.js';

const DURATION = /^Duration: \d+\.\d{2} seconds\n$/;

describe('Console over a team stream (AutoGen test_group_chat.py, API.md §8)', () => {
  it('resolves to the same TaskResult as run()', async () => {
    const make = () =>
      new SelectorGroupChat([stopAgent('agent1', 2), echoAgent('agent2'), echoAgent('agent3')], {
        client: new ScriptedChatClient(
          ['agent3', 'agent2', 'agent1', 'agent2', 'agent1'].map((n) => scriptedText(n)),
        ),
        terminationCondition: new TextMentionTermination('TERMINATE'),
      });
    const result = await make().run(TASK);
    const sink = lineSink();
    const viaConsole = await Console(make().runStream(TASK), { write: sink.write });
    expect(outcome(viaConsole)).toEqual(outcome(result));
  });

  it('writes a header and the text of every message, then the summary block', async () => {
    const team = new RoundRobinGroupChat([echoAgent('agent_1'), echoAgent('agent_2')], {
      terminationCondition: new MaxMessageTermination(3),
    });
    const sink = lineSink();
    const result = await Console(team.runStream('Hello'), { outputStats: true, write: sink.write });
    for (const line of sink.lines) expect(line).toMatch(/^[^\n]*\n$/);
    expect(sink.lines.slice(0, -1)).toEqual([
      '---------- TextMessage (user) ----------\n',
      'Hello\n',
      '---------- TextMessage (agent_1) ----------\n',
      'Hello\n',
      '---------- TextMessage (agent_2) ----------\n',
      'Hello\n',
      '---------- Summary ----------\n',
      'Number of messages: 3\n',
      'Finish reason: Maximum number of messages 3 reached, current message count: 3\n',
      'Total prompt tokens: 0\n',
      'Total completion tokens: 0\n',
    ]);
    expect(sink.lines.at(-1)).toMatch(DURATION);
    expect(result.stopReason).toBe(
      'Maximum number of messages 3 reached, current message count: 3',
    );
  });

  it('writes every line of a multi-line text under its header and no summary without outputStats', async () => {
    const team = new RoundRobinGroupChat([echoAgent('agent_1')], { maxTurns: 1 });
    const sink = lineSink();
    await Console(team.runStream('line one\nline two'), { write: sink.write });
    expect(sink.lines).toEqual([
      '---------- TextMessage (user) ----------\n',
      'line one\n',
      'line two\n',
      '---------- TextMessage (agent_1) ----------\n',
      'line one\n',
      'line two\n',
    ]);
  });

  it("totals the run's token usage in the summary", async () => {
    const writer = new Agent({
      name: 'writer',
      client: new ScriptedChatClient([
        scriptedText('Draft', { promptTokens: 10, completionTokens: 5 }),
        scriptedText('Final APPROVE', { promptTokens: 20, completionTokens: 7 }),
      ]),
    });
    const team = new RoundRobinGroupChat([writer, echoAgent('critic')], {
      terminationCondition: new TextMentionTermination('APPROVE'),
    });
    const sink = lineSink();
    const result = await Console(team.runStream('Write.'), {
      outputStats: true,
      write: sink.write,
    });
    expect(result.usage).toEqual({ promptTokens: 30, completionTokens: 12 });
    expect(sink.lines.slice(-6, -1)).toEqual([
      '---------- Summary ----------\n',
      'Number of messages: 4\n',
      "Finish reason: Text 'APPROVE' mentioned\n",
      'Total prompt tokens: 30\n',
      'Total completion tokens: 12\n',
    ]);
    expect(sink.lines.at(-1)).toMatch(DURATION);
    const headers = sink.lines.filter((l) => l.startsWith('---------- ') && !l.includes('Summary'));
    expect(headers).toEqual([
      '---------- TextMessage (user) ----------\n',
      '---------- TextMessage (writer) ----------\n',
      '---------- TextMessage (critic) ----------\n',
      '---------- TextMessage (writer) ----------\n',
    ]);
    expect(sink.lines).toContain('Final APPROVE\n');
  });
});
