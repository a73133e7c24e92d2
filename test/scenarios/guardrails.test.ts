import { describe, expect, it } from 'vitest';

import {
  Agent,
  ConfigError,
  guardrail,
  HandoffBuilder,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  type ScriptedStep,
  TextMessageTermination,
} from '../../src/index.js';
import { calls, lines } from './approvals-helpers.js';

const noCards = guardrail({
  name: 'no_card_numbers',
  check: ({ text }) =>
    /\b\d{13,16}\b/.test(text) ? { tripwire: true, info: 'a card number' } : { tripwire: false },
});

function desk(triage: readonly ScriptedStep[], billing: readonly ScriptedStep[] = []) {
  const triageClient = new ScriptedChatClient(triage);
  const billingClient = new ScriptedChatClient(billing);
  const builder = new HandoffBuilder({
    participants: [
      new Agent({ name: 'triage', client: triageClient }),
      new Agent({ name: 'billing', client: billingClient }),
    ],
  }).coordinator('triage');
  return { builder, triageClient, billingClient };
}

describe('guardrails (API.md §10)', () => {
  it('a tripped input is recorded, then the event; no agent sees it', async () => {
    const { builder, triageClient } = desk([scriptedText('How can I help?')]);
    const workflow = builder.withGuardrails({ input: [noCards] }).build();
    const result = await workflow.run('My card is 4111111111111111');

    expect(lines(result.messages)).toEqual([
      'TextMessage(user): My card is 4111111111111111',
      'GuardrailTrippedEvent(no_card_numbers): a card number',
    ]);
    expect([result.status, result.stopReason]).toEqual([
      'terminated',
      'Guardrail "no_card_numbers" tripped: a card number',
    ]);
    expect(triageClient.calls).toHaveLength(0);
    expect(lines(await workflow.session('default').messages())).toEqual(lines(result.messages));

    // As after any stop, the next run with a task continues the session.
    const next = await workflow.run('Sorry, never mind.');
    expect(lines(next.messages)).toEqual([
      'TextMessage(user): Sorry, never mind.',
      'TextMessage(triage): How can I help?',
      'UserInputRequestedEvent(triage): How can I help?',
    ]);
  });

  it('a tripped answer is not recorded, only the event', async () => {
    const { builder } = desk([scriptedText('Your card 4111111111111111 is on file.')]);
    const workflow = builder.withGuardrails({ output: [noCards] }).build();
    const result = await workflow.run('Which card do you have?');

    expect(lines(result.messages)).toEqual([
      'TextMessage(user): Which card do you have?',
      'GuardrailTrippedEvent(no_card_numbers): a card number',
    ]);
    expect(result.stopReason).toBe('Guardrail "no_card_numbers" tripped: a card number');
    expect(lines(await workflow.session('default').messages())).toEqual(lines(result.messages));
  });

  it('gives the check what API.md names and leaves handoffs unchecked', async () => {
    const seen: unknown[] = [];
    const spy = guardrail({
      name: 'spy',
      check: ({ text, agent, sessionId, messages, signal }) => {
        seen.push([text, agent, sessionId, messages.length, signal instanceof AbortSignal]);
        return { tripwire: false };
      },
    });
    const { builder } = desk([calls(['h', 'handoff_to_billing'])], [scriptedText('Billing.')]);
    const workflow = builder.withGuardrails({ input: [spy], output: [spy] }).build();
    await workflow.session('s1').run('hello');
    expect(seen).toEqual([
      ['hello', null, 's1', 1, true],
      ['Billing.', 'billing', 's1', 5, true],
    ]);
  });

  it('shows non-string info as text in the event but not in the stop reason', async () => {
    const flag = guardrail({ name: 'flag', check: () => ({ tripwire: true, info: { score: 9 } }) });
    const { builder } = desk([]);
    const result = await builder
      .withGuardrails({ input: [flag] })
      .build()
      .run('x');
    expect(result.stopReason).toBe('Guardrail "flag" tripped');
    expect(lines(result.messages).at(-1)).toBe('GuardrailTrippedEvent(flag): {"score":9}');
  });

  it('a guardrail that throws rejects run() with its message, committing nothing of the answer', async () => {
    const broken = guardrail({
      name: 'broken',
      check: () => {
        throw new Error('policy service down');
      },
    });
    const { builder } = desk([scriptedText('Hi')]);
    const workflow = builder.withGuardrails({ output: [broken] }).build();
    await expect(workflow.run('hello')).rejects.toThrow(
      'Guardrail "broken" failed in session "default": policy service down',
    );
    expect(lines(await workflow.session('default').messages())).toEqual([
      'TextMessage(user): hello',
    ]);
  });

  it('teams take the guardrails option', async () => {
    const client = new ScriptedChatClient([scriptedText('card 4111111111111111')]);
    const team = new RoundRobinGroupChat([new Agent({ name: 'a', client })], {
      guardrails: { output: [noCards] },
      terminationCondition: new TextMessageTermination('a'),
    });
    const result = await team.run('go');
    expect([result.status, result.stopReason, lines(result.messages)]).toEqual([
      'terminated',
      'Guardrail "no_card_numbers" tripped: a card number',
      ['TextMessage(user): go', 'GuardrailTrippedEvent(no_card_numbers): a card number'],
    ]);
  });

  it('checks its options at construction', () => {
    expect(() => guardrail({ name: '', check: () => ({ tripwire: false }) })).toThrow(ConfigError);
    expect(() => guardrail({ name: 'x' } as never)).toThrow(
      'Guardrail "x" needs a `check` function returning { tripwire, info? }.',
    );
    expect(() => new RoundRobinGroupChat([], { guardrails: { input: [{}] } as never })).toThrow(
      ConfigError,
    );
    const { builder } = desk([]);
    expect(() => builder.withGuardrails({ output: 'x' as never })).toThrow(
      'withGuardrails(): guardrails.output must be an array of guardrail({ name, check }) objects.',
    );
  });
});
