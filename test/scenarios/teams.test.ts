import { describe, expect, it } from 'vitest';

import {
  ConfigError,
  Console,
  HandoffTermination,
  handoffMessage,
  MaxMessageTermination,
  RoundRobinGroupChat,
  ScriptedChatClient,
  SelectorGroupChat,
  Swarm,
  scriptedText,
  TextMessageTermination,
  textMessage,
} from '../../src/index.js';
import { FakeAgent, type SeenTurn, transcript } from '../support/fake-agent.js';

const talker = (name: string, log: SeenTurn[], n = 20) =>
  new FakeAgent(
    name,
    Array.from({ length: n }, (_, i) => ({ say: `${name} ${i + 1}` })),
    log,
  );

describe('RoundRobinGroupChat', () => {
  it('keeps the next speaker across runs and new tasks; reset() starts over', async () => {
    const log: SeenTurn[] = [];
    const team = new RoundRobinGroupChat([talker('a', log), talker('b', log), talker('c', log)], {
      terminationCondition: new MaxMessageTermination(3),
    });
    await team.run('first');
    await team.run('second');
    expect(log.map((t) => t.agent)).toEqual(['a', 'b', 'c', 'a']);
    await team.run();
    expect(log.map((t) => t.agent).slice(4)).toEqual(['b', 'c', 'a']);
    await team.reset();
    await team.run('again');
    expect(log.map((t) => t.agent).slice(7)).toEqual(['a', 'b']);
  });

  it('round-trips saveState() into a new team with the same agent names', async () => {
    const log: SeenTurn[] = [];
    const make = () =>
      new RoundRobinGroupChat([talker('a', log), talker('b', log)], {
        terminationCondition: new MaxMessageTermination(2),
      });
    const first = make();
    await first.run('go');
    const saved = await first.saveState();
    const second = make();
    await second.loadState(saved);
    expect(await second.saveState()).toEqual(saved);
    const next = await second.run();
    expect(transcript(next.messages)).toEqual(['TextMessage(b): b 1', 'TextMessage(a): a 1']);
  });
});

describe('SelectorGroupChat', () => {
  it('asks selectorFunc first and the model when it returns nothing', async () => {
    const log: SeenTurn[] = [];
    const client = new ScriptedChatClient([scriptedText('analyst')]);
    const team = new SelectorGroupChat([talker('planner', log), talker('analyst', log)], {
      client,
      selectorFunc: (messages) => (messages.length === 1 ? 'planner' : null),
      allowRepeatedSpeaker: true,
      maxTurns: 2,
    });
    const result = await team.run('Plan the launch.');
    expect(log.map((t) => t.agent)).toEqual(['planner', 'analyst']);
    expect(result.stopReason).toBe('Maximum number of turns 2 reached.');
    const prompt = client.calls[0]?.messages[0];
    expect(prompt?.role).toBe('system');
    expect(prompt?.content).toContain('planner: planner agent\nanalyst: analyst agent');
    expect(prompt?.content).toContain('select the next role from [planner, analyst] to play');
    expect(prompt?.content).toContain('user: Plan the launch.\nplanner: planner 1');
  });

  it('retries an invalid pick with feedback and falls back to the previous speaker', async () => {
    const log: SeenTurn[] = [];
    const client = new ScriptedChatClient([
      scriptedText('planner or analyst?'),
      scriptedText('nobody'),
      scriptedText('still nobody'),
    ]);
    const team = new SelectorGroupChat(
      [talker('planner', log), talker('analyst', log), talker('writer', log)],
      {
        client,
        selectorFunc: (messages) => (messages.length === 1 ? 'planner' : null),
        allowRepeatedSpeaker: true,
        maxTurns: 2,
      },
    );
    await team.run('go');
    expect(log.map((t) => t.agent)).toEqual(['planner', 'planner']);
    expect(client.calls.map((c) => c.messages.at(-1)?.content)).toEqual([
      expect.stringContaining('Only return the role.'),
      'Expected exactly one name to be mentioned. Please select only one from: [planner, analyst, writer].',
      'No valid name was mentioned. Please select from: [planner, analyst, writer].',
    ]);
  });

  it('refuses a selectorFunc pick that is not a participant, and a team without a way to pick', async () => {
    const team = new SelectorGroupChat([talker('a', [])], { selectorFunc: () => 'zed' });
    await expect(team.run('go')).rejects.toThrow(
      'SelectorGroupChat: selectorFunc returned "zed", which is not a participant (a).',
    );
    expect(() => new SelectorGroupChat([talker('a', [])])).toThrow(ConfigError);
  });
});

describe('Swarm', () => {
  it("follows handoffs, stops on a handoff to the user and resumes with the user's handoff", async () => {
    const log: SeenTurn[] = [];
    const agent = new FakeAgent('agent', [{ handoff: 'refunder' }, { say: 'All done.' }], log);
    const refunder = new FakeAgent('refunder', [{ handoff: 'user' }, { handoff: 'agent' }], log);
    const team = new Swarm([agent, refunder], {
      terminationCondition: new HandoffTermination('user').or(new TextMessageTermination('agent')),
    });
    const first = await team.run('Refund my flight');
    expect(first.stopReason).toBe('Handoff to user from refunder detected.');
    const before = await team.saveState();
    await expect(team.run('It is BA-1')).rejects.toThrow(
      'Swarm: the latest handoff targets "user", which is not a participant ("agent", "refunder"). Resume with run(handoffMessage({ source: "user", target: <participant>, content })).',
    );
    await expect(team.run()).rejects.toThrow('the latest handoff targets "user"');
    expect(await team.saveState()).toEqual(before);
    const resumed = await team.run(
      handoffMessage({ source: 'user', target: 'refunder', content: 'It is BA-1' }),
      {
        outputTaskMessages: false,
      },
    );
    expect(log.map((t) => t.agent)).toEqual(['agent', 'refunder', 'refunder', 'agent']);
    expect(resumed.messages.at(-1)).toMatchObject({ type: 'TextMessage', content: 'All done.' });
  });
});

describe('Console()', () => {
  it('renders a header per message, usage when present, and the summary block', async () => {
    const lines: string[] = [];
    const writer = new FakeAgent('writer', [
      { say: 'Line one\nLine two', usage: { promptTokens: 12, completionTokens: 5 } },
    ]);
    const team = new RoundRobinGroupChat([writer], {
      terminationCondition: new MaxMessageTermination(2),
    });
    let now = 1_000;
    const result = await Console(
      team.runStream(textMessage({ source: 'user', content: 'Write.' })),
      {
        outputStats: true,
        write: (line) => lines.push(line),
        clock: () => (now += 1_250),
      },
    );
    expect(lines.join('')).toBe(
      [
        '---------- TextMessage (user) ----------',
        'Write.',
        '---------- TextMessage (writer) ----------',
        'Line one',
        'Line two',
        '[Prompt tokens: 12, Completion tokens: 5]',
        '---------- Summary ----------',
        'Number of messages: 2',
        'Finish reason: Maximum number of messages 2 reached, current message count: 2',
        'Total prompt tokens: 12',
        'Total completion tokens: 5',
        'Duration: 1.25 seconds',
        '',
      ].join('\n'),
    );
    expect(lines.every((l) => l.endsWith('\n'))).toBe(true);
    expect(result.stopReason).toBe(
      'Maximum number of messages 2 reached, current message count: 2',
    );
  });
});
