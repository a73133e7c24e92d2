import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  ConfigError,
  HandoffBuilder,
  MaxMessageTermination,
  MemoryCheckpointStore,
  ScriptedChatClient,
  scriptedText,
  structuredMessage,
} from '../../src/index.js';
import { FakeAgent, type SeenTurn, transcript } from '../support/fake-agent.js';

const PHRASE = 'This is outside my area';

describe('withUserReplyRouting("lazy")', () => {
  it('classifies the first request, then lets the specialist talk to the user directly', async () => {
    const log: SeenTurn[] = [];
    const triage = new FakeAgent('triage', [{ handoff: 'billing' }], log);
    const billing = new FakeAgent(
      'billing',
      [{ say: 'Which invoice?' }, { say: 'Refunded INV-7.' }],
      log,
    );
    const tech = new FakeAgent('tech', [], log);
    const workflow = new HandoffBuilder({ participants: [triage, billing, tech] })
      .coordinator(triage)
      .withUserReplyRouting('lazy')
      .build();
    const first = await workflow.run('My invoice is wrong');
    expect(first.pendingRequest).toMatchObject({ agent: 'billing', prompt: 'Which invoice?' });
    const second = await workflow.run('INV-7');
    expect(second.pendingRequest?.prompt).toBe('Refunded INV-7.');
    expect(log.map((t) => t.agent)).toEqual(['triage', 'billing', 'billing']);
    expect(log[0]?.handoffs).toEqual(['handoff_to_billing', 'handoff_to_tech']);
  });

  it('reclassifies in the same run when the specialist says the phrase, without pausing', async () => {
    const log: SeenTurn[] = [];
    const triage = new FakeAgent('triage', [{ handoff: 'billing' }, { handoff: 'tech' }], log);
    const billing = new FakeAgent(
      'billing',
      [{ say: 'Which invoice?' }, { say: `${PHRASE}: that is technical.` }],
      log,
    );
    const tech = new FakeAgent('tech', [{ say: 'Restart the router.' }], log);
    const workflow = new HandoffBuilder({ participants: [triage, billing, tech] })
      .coordinator(triage)
      .withUserReplyRouting('lazy')
      .build();
    await workflow.run('My invoice is wrong');
    const result = await workflow.run('Also my internet is down');
    expect(transcript(result.messages)).toEqual([
      'TextMessage(user): Also my internet is down',
      `TextMessage(billing): ${PHRASE}: that is technical.`,
      'ToolCallRequestEvent(triage)',
      'ToolCallExecutionEvent(triage)',
      'HandoffMessage(triage): Transferred to tech, adopting the role of tech immediately.',
      'TextMessage(tech): Restart the router.',
      'UserInputRequestedEvent(tech): Restart the router.',
    ]);
    expect(log.map((t) => t.agent)).toEqual(['triage', 'billing', 'billing', 'triage', 'tech']);
  });

  it('classifies with a function (no model call) and records its choice', async () => {
    const log: SeenTurn[] = [];
    const triage = new FakeAgent('triage', [], log);
    const billing = new FakeAgent('billing', [{ say: `${PHRASE}.` }], log);
    const tech = new FakeAgent('tech', [{ say: 'Restart the router.' }], log);
    const seen: string[] = [];
    const workflow = new HandoffBuilder({ participants: [triage, billing, tech] })
      .coordinator(triage)
      .withUserReplyRouting('lazy', {
        handoffPhrase: /outside my area/,
        classifier: (text, participants) => {
          seen.push(`${text} | ${participants.map((p) => p.name).join(',')}`);
          return seen.length === 1 ? 'billing' : 'tech';
        },
      })
      .build();
    const result = await workflow.run('Internet down, but maybe billing?');
    expect(transcript(result.messages)).toEqual([
      'TextMessage(user): Internet down, but maybe billing?',
      'SelectSpeakerEvent(classifier)',
      `TextMessage(billing): ${PHRASE}.`,
      'SelectSpeakerEvent(classifier)',
      'TextMessage(tech): Restart the router.',
      'UserInputRequestedEvent(tech): Restart the router.',
    ]);
    // billing declined in this user turn, so the classifier is not offered it again.
    expect(seen).toEqual([
      'Internet down, but maybe billing? | triage,billing,tech',
      'Internet down, but maybe billing? | triage,tech',
    ]);
    expect(workflow.toMermaid()).toContain('n_user -->|message| n_classifying');
  });

  it('gives the chosen specialist only the last contextTurns turns', async () => {
    const log: SeenTurn[] = [];
    const triage = new FakeAgent('triage', [{ handoff: 'billing' }, { handoff: 'tech' }], log);
    const billing = new FakeAgent(
      'billing',
      [{ say: 'One.' }, { say: 'Two.' }, { say: `${PHRASE}.` }],
      log,
    );
    const threadSeen: number[] = [];
    const tech = new FakeAgent(
      'tech',
      [
        (ctx) => {
          threadSeen.push(ctx.conversation.length);
          return {
            chatMessage: {
              ...structuredMessage({ source: 'tech', content: 'x' }),
              type: 'TextMessage',
              content: 'Tech here.',
            },
          };
        },
      ],
      log,
    );
    const workflow = new HandoffBuilder({ participants: [triage, billing, tech] })
      .coordinator(triage)
      .withUserReplyRouting('lazy', { contextTurns: 1 })
      .build();
    await workflow.run('first');
    await workflow.run('second');
    await workflow.run('third, about the internet');
    // tech sees from the last user message on: the message, billing's phrase answer and triage's handoff.
    expect(threadSeen).toEqual([5]);
    expect(log.at(-1)?.newMessages).toEqual([
      'user: third, about the internet',
      `billing: ${PHRASE}.`,
      'triage: Transferred to tech, adopting the role of tech immediately.',
    ]);
  });

  it('keeps working with a checkpoint store and a termination condition across workflow objects', async () => {
    const store = new MemoryCheckpointStore();
    type Turns = ConstructorParameters<typeof FakeAgent>[1];
    const make = (script: { triage: Turns; billing: Turns }) =>
      new HandoffBuilder({
        participants: [
          new FakeAgent('triage', script.triage),
          new FakeAgent('billing', script.billing),
        ],
      })
        .coordinator('triage')
        .withUserReplyRouting('lazy')
        .withCheckpointing(store)
        .withTerminationCondition(new MaxMessageTermination(5))
        .build();
    await make({ triage: [{ handoff: 'billing' }], billing: [{ say: 'Which invoice?' }] })
      .session('s')
      .run('invoice');
    const second = await make({ triage: [], billing: [{ say: 'Done.' }] })
      .session('s')
      .run('INV-7');
    expect(second.stopReason).toBe(
      'Maximum number of messages 5 reached, current message count: 5',
    );
    expect(transcript(second.messages)).toEqual([
      'TextMessage(user): INV-7',
      'TextMessage(billing): Done.',
    ]);
  });

  it('refuses bad lazy options', () => {
    const builder = new HandoffBuilder({ participants: [new FakeAgent('triage', [])] });
    expect(() => builder.withUserReplyRouting('lazy', { handoffPhrase: '' })).toThrow(ConfigError);
    expect(() => builder.withUserReplyRouting('lazy', { contextTurns: 0 })).toThrow(
      'withUserReplyRouting("lazy"): contextTurns needs a positive integer, got 0.',
    );
    expect(() => builder.withUserReplyRouting('lazy', { classifier: 42 as never })).toThrow(
      ConfigError,
    );
  });
});

describe('withResolver()', () => {
  const Route = z.object({ route: z.enum(['billing', 'tech', 'none']), reply: z.string() });

  it('routes with structured output and no handoff tools, or lets the resolver answer', async () => {
    const client = new ScriptedChatClient([
      scriptedText('{"route":"billing","reply":""}'),
      scriptedText('{"route":"none","reply":"Hello! What can I do?"}'),
    ]);
    const triage = new Agent({ name: 'triage', client });
    const billingLog: SeenTurn[] = [];
    const billing = new FakeAgent('billing', [{ say: 'Which invoice?' }], billingLog);
    const workflow = new HandoffBuilder({
      participants: [triage, billing, new FakeAgent('tech', [])],
    })
      .coordinator(triage)
      .withResolver({ schema: Route, resolve: (out) => (out.route === 'none' ? null : out.route) })
      .build();
    const first = await workflow.run('Refund please');
    expect(transcript(first.messages)).toEqual([
      'TextMessage(user): Refund please',
      'StructuredMessage(triage)',
      'TextMessage(billing): Which invoice?',
      'UserInputRequestedEvent(billing): Which invoice?',
    ]);
    expect(client.calls[0]?.tools).toBeUndefined();
    expect(client.calls[0]?.outputSchema).toMatchObject({ type: 'object' });
    const second = await workflow.run('hi');
    expect(second.pendingRequest).toMatchObject({
      agent: 'triage',
      prompt: '{"route":"none","reply":"Hello! What can I do?"}',
    });
    expect(workflow.toMermaid()).toContain('n_classifying -->|routes| n_billing');
  });

  it('refuses a resolver target that is not a participant', async () => {
    const triage = new Agent({
      name: 'triage',
      client: new ScriptedChatClient([scriptedText('{"route":"tech","reply":""}')]),
    });
    const workflow = new HandoffBuilder({ participants: [triage, new FakeAgent('billing', [])] })
      .coordinator(triage)
      .withResolver({ schema: Route, resolve: (out) => `x-${out.route}` })
      .build();
    await expect(workflow.run('help')).rejects.toThrow(
      'The router of workflow "handoff" chose "x-tech", which is not a participant it can route to (billing).',
    );
  });
});
