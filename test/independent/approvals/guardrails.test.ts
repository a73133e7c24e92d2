// Issue 15 / API.md §10: guardrails in HandoffBuilder and the teams' `guardrails` option, black-box.
import { describe, expect, it } from 'vitest';

import {
  Agent,
  guardrail,
  HandoffBuilder,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  SelectorGroupChat,
  Swarm,
  GraphBuilder,
  TextMessageTermination,
  type Runnable,
} from '../../../src/index.js';
import { ofType, types } from './helpers.js';

const seen: { text: string; agent: string | null }[] = [];
const noCards = guardrail({
  name: 'no_card_numbers',
  check: ({ text, agent }) => {
    seen.push({ text, agent });
    return /\b\d{13,16}\b/.test(text)
      ? { tripwire: true, info: 'a card number' }
      : { tripwire: false };
  },
});
const CARD_STOP = 'Guardrail "no_card_numbers" tripped: a card number';

function desk(steps: ConstructorParameters<typeof ScriptedChatClient>[0]) {
  const client = new ScriptedChatClient(steps);
  return { agent: new Agent({ name: 'desk', client }), client };
}

describe('HandoffBuilder.withGuardrails', () => {
  it('a tripped input is recorded, then the event; no agent sees it', async () => {
    seen.length = 0;
    const { agent, client } = desk([scriptedText('Hello again.')]);
    const workflow = new HandoffBuilder({ participants: [agent] })
      .coordinator(agent)
      .withGuardrails({ input: [noCards], output: [] })
      .build();
    const result = await workflow.run('my card is 4111111111111111');
    expect(result.status).toBe('terminated');
    expect(result.stopReason).toBe(CARD_STOP);
    expect(result.pendingRequest).toBeUndefined();
    expect(types(result.messages)).toEqual(['TextMessage', 'GuardrailTrippedEvent']);
    expect(result.messages[0]).toMatchObject({
      source: 'user',
      content: 'my card is 4111111111111111',
    });
    expect(result.messages[1]).toMatchObject({
      source: 'no_card_numbers',
      content: 'a card number',
    });
    expect(client.calls).toHaveLength(0);
    expect(seen).toEqual([{ text: 'my card is 4111111111111111', agent: null }]);

    // The next run() with a task continues the session.
    const next = await workflow.run('hello');
    expect(next.status).toBe('awaiting_input');
    expect(next.pendingRequest).toMatchObject({
      agent: 'desk',
      kind: 'input',
      prompt: 'Hello again.',
    });
    const thread = await workflow.session(result.sessionId).messages();
    expect(types(thread)).toEqual([
      'TextMessage',
      'GuardrailTrippedEvent',
      'TextMessage',
      'TextMessage',
      'UserInputRequestedEvent',
    ]);
  });

  it('a tripped answer is not recorded; only the event', async () => {
    seen.length = 0;
    const { agent } = desk([scriptedText('Your card 4111111111111111 is on file.')]);
    const workflow = new HandoffBuilder({ participants: [agent] })
      .coordinator(agent)
      .withGuardrails({ input: [], output: [noCards] })
      .build();
    const result = await workflow.run('what card do you have?');
    expect(result.status).toBe('terminated');
    expect(result.stopReason).toBe(CARD_STOP);
    expect(types(result.messages)).toEqual(['TextMessage', 'GuardrailTrippedEvent']);
    expect(result.messages[1]).toMatchObject({
      type: 'GuardrailTrippedEvent',
      source: 'no_card_numbers',
      content: 'a card number',
    });
    const thread = await workflow.session(result.sessionId).messages();
    expect(thread.some((m) => m.type === 'TextMessage' && m.source === 'desk')).toBe(false);
    expect(seen).toEqual([{ text: 'Your card 4111111111111111 is on file.', agent: 'desk' }]);
  });

  it('a tripwire without string info: the stop reason has no suffix', async () => {
    const bare = guardrail({ name: 'bare', check: () => ({ tripwire: true }) });
    const { agent } = desk([]);
    const workflow = new HandoffBuilder({ participants: [agent] })
      .coordinator(agent)
      .withGuardrails({ input: [bare] })
      .build();
    const result = await workflow.run('anything');
    expect(result.stopReason).toBe('Guardrail "bare" tripped');
    expect(ofType(result.messages, 'GuardrailTrippedEvent')).toMatchObject([{ source: 'bare' }]);
  });

  it('output guardrails do not check HandoffMessages', async () => {
    const checked: { text: string; agent: string | null }[] = [];
    const noTransfers = guardrail({
      name: 'no_transfers',
      check: async ({ text, agent }) => {
        checked.push({ text, agent });
        return { tripwire: text.includes('Transferred'), info: 'transfer' };
      },
    });
    const triage = new Agent({
      name: 'triage',
      client: new ScriptedChatClient([scriptedToolCall('handoff_to_billing', {}, 'h1')]),
    });
    const billing = new Agent({
      name: 'billing',
      client: new ScriptedChatClient([scriptedText('Billing here.')]),
    });
    const workflow = new HandoffBuilder({ participants: [triage, billing] })
      .coordinator(triage)
      .withGuardrails({ output: [noTransfers] })
      .build();
    const result = await workflow.run('refund please');
    expect(result.status).toBe('awaiting_input');
    expect(result.pendingRequest).toMatchObject({ agent: 'billing', prompt: 'Billing here.' });
    expect(ofType(result.messages, 'HandoffMessage')).toHaveLength(1);
    expect(ofType(result.messages, 'GuardrailTrippedEvent')).toEqual([]);
    expect(checked).toEqual([{ text: 'Billing here.', agent: 'billing' }]);
  });

  it('a guardrail that throws rejects run() with its message', async () => {
    const broken = guardrail({
      name: 'broken',
      check: () => {
        throw new Error('policy service down');
      },
    });
    const { agent } = desk([scriptedText('hi')]);
    const workflow = new HandoffBuilder({ participants: [agent] })
      .coordinator(agent)
      .withGuardrails({ input: [broken] })
      .build();
    await expect(workflow.run('hello')).rejects.toThrow('policy service down');
  });

  it('guardrails receive the session id and a signal', async () => {
    const got: unknown[] = [];
    const spy = guardrail({
      name: 'spy',
      check: ({ sessionId, signal, messages }) => {
        got.push([sessionId, signal instanceof AbortSignal, Array.isArray(messages)]);
        return { tripwire: false };
      },
    });
    const { agent } = desk([scriptedText('hi')]);
    const workflow = new HandoffBuilder({ participants: [agent] })
      .coordinator(agent)
      .withGuardrails({ input: [spy], output: [spy] })
      .build();
    await workflow.session('g-1').run('hello');
    expect(got).toEqual([
      ['g-1', true, true],
      ['g-1', true, true],
    ]);
  });
});

type Kind = 'RoundRobinGroupChat' | 'SelectorGroupChat' | 'Swarm' | 'GraphBuilder';
function team(kind: Kind, answer: string): { team: Runnable; client: ScriptedChatClient } {
  const { agent, client } = desk([scriptedText(answer), scriptedText('second answer')]);
  const guardrails = { input: [noCards], output: [noCards] };
  const stop = new TextMessageTermination('desk');
  switch (kind) {
    case 'RoundRobinGroupChat':
      return {
        team: new RoundRobinGroupChat([agent], { terminationCondition: stop, guardrails }),
        client,
      };
    case 'SelectorGroupChat':
      return {
        team: new SelectorGroupChat([agent], {
          selectorFunc: () => 'desk',
          terminationCondition: stop,
          guardrails,
        }),
        client,
      };
    case 'Swarm':
      return { team: new Swarm([agent], { terminationCondition: stop, guardrails }), client };
    case 'GraphBuilder':
      // API.md §10 says "teams and graphs: option `guardrails`"; GraphBuilder takes its options
      // through builder methods (§13), so the graph form tested here is withGuardrails().
      return {
        team: new GraphBuilder({ name: 'g' }).addNode(agent).withGuardrails(guardrails).build(),
        client,
      };
  }
}

describe.each(['RoundRobinGroupChat', 'SelectorGroupChat', 'Swarm', 'GraphBuilder'] as Kind[])(
  '%s option `guardrails`',
  (kind) => {
    it('input tripwire: recorded task, then the event; the next task continues', async () => {
      const { team: t, client } = team(kind, 'fine');
      const result = await t.run('card 4111111111111111');
      expect(result.status).toBe('terminated');
      expect(result.stopReason).toBe(CARD_STOP);
      expect(types(result.messages)).toEqual(['TextMessage', 'GuardrailTrippedEvent']);
      expect(client.calls).toHaveLength(0);
      const next = await t.run('hello');
      expect(next.status).toBe('terminated');
      expect(ofType(next.messages, 'TextMessage').map((m) => m.content)).toEqual(['hello', 'fine']);
      const thread = await t.session(result.sessionId).messages();
      expect(ofType(thread, 'TextMessage').map((m) => m.content)).toEqual([
        'card 4111111111111111',
        'hello',
        'fine',
      ]);
    });

    it('output tripwire: the answer is not recorded', async () => {
      const { team: t } = team(kind, 'your card 4111111111111111');
      const result = await t.run('hi');
      expect(result.status).toBe('terminated');
      expect(result.stopReason).toBe(CARD_STOP);
      expect(types(result.messages)).toEqual(['TextMessage', 'GuardrailTrippedEvent']);
      expect(result.messages[1]).toMatchObject({
        source: 'no_card_numbers',
        content: 'a card number',
      });
    });
  },
);
