// An independent black-box suite of lazy user-reply routing, written from API.md §6
// (`withUserReplyRouting("lazy", { handoffPhrase, classifier, contextTurns })`) and issue 7 only.
// Everything comes from the package entry; agents run on ScriptedChatClient, so a model call that
// the contract says must not happen fails the run with "no step for call #n".

import { describe, expect, it } from 'vitest';

import {
  type AgentContext,
  type AgentMessage,
  type ChatAgent,
  handoffMessage,
  messageToText,
  scriptedText,
  scriptedToolCall,
} from '../../src/index.js';
import {
  DEFAULT_PHRASE,
  desk,
  pause,
  said,
  scripted,
  texts,
  toolNames,
  trail,
} from './routing-contract-helpers.js';

describe('withUserReplyRouting("lazy") with the default classifier', () => {
  it('classifies the very first user message by asking the coordinator to hand off', async () => {
    const d = desk({
      triage: [scriptedToolCall('handoff_to_billing')],
      billing: [scriptedText('Which invoice was charged twice?')],
    });
    const workflow = d.builder().withUserReplyRouting('lazy').build();

    const result = await workflow.session('first').run('I was charged twice');

    expect(pause(result)).toEqual({
      status: 'awaiting_input',
      agent: 'billing',
      prompt: 'Which invoice was charged twice?',
      stopReason: null,
    });
    expect(d.triage.client.calls).toHaveLength(1);
    expect(toolNames(d.triage.client.calls[0])).toEqual(
      expect.arrayContaining(['handoff_to_billing', 'handoff_to_tech', 'handoff_to_account']),
    );
    expect(said(d.triage.client.calls[0])).toContain('I was charged twice');
    expect(said(d.billing.client.calls[0])).toContain('I was charged twice');
    expect(d.tech.client.calls).toHaveLength(0);
  });

  it('records the classifying handoff as a normal hop before the specialist answers', async () => {
    const d = desk({
      triage: [scriptedToolCall('handoff_to_billing')],
      billing: [scriptedText('Which invoice?')],
    });
    const workflow = d.builder().withUserReplyRouting('lazy').build();

    const result = await workflow.session('hop').run('I was charged twice');

    expect(trail(result.messages)).toEqual([
      'TextMessage(user)',
      'ToolCallRequestEvent(triage)',
      'ToolCallExecutionEvent(triage)',
      'HandoffMessage(triage)',
      'TextMessage(billing)',
      'UserInputRequestedEvent(billing)',
    ]);
    const handoff = result.messages.find((m) => m.type === 'HandoffMessage');
    expect(handoff?.type === 'HandoffMessage' && handoff.target).toBe('billing');
  });

  it('sends follow-up replies straight to the specialist, with no coordinator call', async () => {
    const d = desk({
      triage: [scriptedToolCall('handoff_to_billing')],
      billing: [
        scriptedText('Which invoice?'),
        scriptedText('INV-7 is refunded. Anything else?'),
        scriptedText('Glad to help.'),
      ],
    });
    const session = d.builder().withUserReplyRouting('lazy').build().session('follow-ups');

    await session.run('I was charged twice');
    const second = await session.run('INV-7');
    const third = await session.run('No, thanks');

    expect(pause(second)).toMatchObject({
      agent: 'billing',
      prompt: 'INV-7 is refunded. Anything else?',
    });
    expect(pause(third)).toMatchObject({ agent: 'billing', prompt: 'Glad to help.' });
    expect(d.triage.client.calls).toHaveLength(1);
    expect(d.billing.client.calls).toHaveLength(3);
    expect(trail(second.messages)).toEqual([
      'TextMessage(user)',
      'TextMessage(billing)',
      'UserInputRequestedEvent(billing)',
    ]);
    expect(said(d.billing.client.calls[1])).toContain('INV-7');
  });
});

describe('withUserReplyRouting("lazy") reclassification', () => {
  const phraseAnswer = `Hmm. ${DEFAULT_PHRASE}: crashes belong to another desk.`;

  async function reclassified() {
    const d = desk({
      triage: [scriptedToolCall('handoff_to_billing'), scriptedToolCall('handoff_to_tech')],
      billing: [scriptedText('Which invoice?'), scriptedText(phraseAnswer)],
      tech: [scriptedText('Reinstall the app.'), scriptedText('Then clear the cache.')],
    });
    const session = d.builder().withUserReplyRouting('lazy').build().session('switch');
    await session.run('I was charged twice');
    const result = await session.run('Also the app crashes on start');
    return { d, session, result };
  }

  it('reclassifies in the same run when the answer contains the default phrase', async () => {
    const { d, result } = await reclassified();

    expect(pause(result)).toEqual({
      status: 'awaiting_input',
      agent: 'tech',
      prompt: 'Reinstall the app.',
      stopReason: null,
    });
    expect(d.triage.client.calls).toHaveLength(2);
    expect(toolNames(d.triage.client.calls[1])).toContain('handoff_to_tech');
    expect(said(d.triage.client.calls[1])).toContain('Also the app crashes on start');
    expect(d.tech.client.calls).toHaveLength(1);
    expect(said(d.tech.client.calls[0])).toContain('Also the app crashes on start');
  });

  it('records the phrase-bearing answer in the thread without pausing on it', async () => {
    const { session, result } = await reclassified();

    const shown = (ms: readonly AgentMessage[]) =>
      trail(ms).filter((t) => /^(TextMessage|UserInputRequestedEvent)/.test(t));
    expect(shown(result.messages)).toEqual([
      'TextMessage(user)',
      'TextMessage(billing)',
      'TextMessage(tech)',
      'UserInputRequestedEvent(tech)',
    ]);
    const requests = result.messages.filter((m) => m.type === 'UserInputRequestedEvent');
    expect(requests.map((m) => [m.source, messageToText(m)])).toEqual([
      ['tech', 'Reinstall the app.'],
    ]);
    expect(texts(await session.messages())).toEqual([
      'user: I was charged twice',
      'billing: Which invoice?',
      'user: Also the app crashes on start',
      `billing: ${phraseAnswer}`,
      'tech: Reinstall the app.',
    ]);
    expect((await session.info()).pendingRequest).toEqual(result.pendingRequest);
  });

  it('keeps the newly chosen specialist for the replies after the switch', async () => {
    const { d, session } = await reclassified();

    const next = await session.run('Reinstalled, still crashes');

    expect(pause(next)).toMatchObject({ agent: 'tech', prompt: 'Then clear the cache.' });
    expect(d.triage.client.calls).toHaveLength(2);
    expect(d.billing.client.calls).toHaveLength(2);
  });

  it('reclassifies on a custom string phrase and no longer on the default one', async () => {
    const d = desk({
      triage: [scriptedToolCall('handoff_to_billing'), scriptedToolCall('handoff_to_account')],
      billing: [
        scriptedText(`${DEFAULT_PHRASE}? No, this one is mine.`),
        scriptedText('[[ROUTE]] passwords are not billing.'),
      ],
      account: [scriptedText('I sent a reset link.')],
    });
    const session = d
      .builder()
      .withUserReplyRouting('lazy', { handoffPhrase: '[[ROUTE]]' })
      .build()
      .session('custom-phrase');

    const first = await session.run('Refund please');
    const second = await session.run('And reset my password');

    expect(pause(first)).toMatchObject({ agent: 'billing' });
    expect(pause(second)).toMatchObject({ agent: 'account', prompt: 'I sent a reset link.' });
    expect(d.triage.client.calls).toHaveLength(2);
  });

  it('reclassifies on a RegExp phrase', async () => {
    const d = desk({
      triage: [scriptedToolCall('handoff_to_billing'), scriptedToolCall('handoff_to_tech')],
      billing: [scriptedText('Which invoice?'), scriptedText('That is NOT OUR DEPARTMENT, sorry.')],
      tech: [scriptedText('Reinstall the app.')],
    });
    const session = d
      .builder()
      .withUserReplyRouting('lazy', { handoffPhrase: /not (my|our) department/i })
      .build()
      .session('regexp');

    await session.run('I was charged twice');
    const result = await session.run('The app crashes');

    expect(pause(result)).toMatchObject({ status: 'awaiting_input', agent: 'tech' });
    expect(texts(result.messages)).toContain('billing: That is NOT OUR DEPARTMENT, sorry.');
  });

  it('reclassifies again when the next specialist also says a global RegExp phrase', async () => {
    // A /g RegExp keeps `lastIndex` between test() calls; the second, shorter answer must match too.
    const d = desk({
      triage: [
        scriptedToolCall('handoff_to_billing'),
        scriptedToolCall('handoff_to_tech'),
        scriptedToolCall('handoff_to_account'),
      ],
      billing: [scriptedText('Which invoice?'), scriptedText('A long answer, then: over to you')],
      tech: [scriptedText('over to you')],
      account: [scriptedText('Reset link sent.')],
    });
    const session = d
      .builder()
      .withUserReplyRouting('lazy', { handoffPhrase: /over to you/g })
      .build()
      .session('global-regexp');

    await session.run('I was charged twice');
    const second = await session.run('My password, really');

    expect(pause(second)).toMatchObject({ agent: 'account', prompt: 'Reset link sent.' });
    expect(texts(second.messages)).toEqual([
      'user: My password, really',
      'billing: A long answer, then: over to you',
      'tech: over to you',
      'account: Reset link sent.',
    ]);
    expect(d.triage.client.calls).toHaveLength(3);
  });
});

describe('withUserReplyRouting("lazy") with a ChatAgent classifier', () => {
  it('asks a non-participant agent to hand off and never calls the coordinator', async () => {
    const d = desk({
      billing: [scriptedText('Which invoice?'), scriptedText(`${DEFAULT_PHRASE}.`)],
      tech: [scriptedText('Reinstall the app.')],
    });
    const router = scripted('router', [
      scriptedToolCall('handoff_to_billing'),
      scriptedToolCall('handoff_to_tech'),
    ]);
    const session = d
      .builder()
      .withUserReplyRouting('lazy', { classifier: router.agent })
      .build()
      .session('router');

    const first = await session.run('I was charged twice');
    const second = await session.run('The app crashes');

    expect(pause(first)).toMatchObject({ agent: 'billing' });
    expect(pause(second)).toMatchObject({ agent: 'tech', prompt: 'Reinstall the app.' });
    expect(d.triage.client.calls).toHaveLength(0);
    expect(router.client.calls).toHaveLength(2);
    expect(toolNames(router.client.calls[0])).toEqual(
      expect.arrayContaining(['handoff_to_billing', 'handoff_to_tech']),
    );
    // billing declined the second request in this user turn: it is not offered again.
    expect(toolNames(router.client.calls[1])).toEqual(expect.arrayContaining(['handoff_to_tech']));
    expect(toolNames(router.client.calls[1])).not.toContain('handoff_to_billing');
    expect(said(router.client.calls[0])).toContain('I was charged twice');
    expect(said(router.client.calls[1])).toContain('The app crashes');
  });

  it('routes on the HandoffMessage of a hand-written ChatAgent', async () => {
    const d = desk({ tech: [scriptedText('Reinstall the app.')] });
    const seen: string[][] = [];
    const picker: ChatAgent = {
      name: 'picker',
      description: 'Picks a desk by keyword.',
      respond: async (ctx: AgentContext) => {
        seen.push(ctx.conversation.map((m) => `${m.source}: ${messageToText(m)}`));
        return {
          chatMessage: handoffMessage({ source: 'picker', target: 'tech', content: 'To tech.' }),
        };
      },
    };
    const workflow = d.builder().withUserReplyRouting('lazy', { classifier: picker }).build();

    const result = await workflow.session('picker').run('The app crashes');

    expect(pause(result)).toMatchObject({ agent: 'tech', prompt: 'Reinstall the app.' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('user: The app crashes');
    expect(d.triage.client.calls).toHaveLength(0);
  });
});

describe('withUserReplyRouting("lazy") with a function classifier', () => {
  it('gives it the user text and the participants, and makes no model call', async () => {
    const d = desk({
      billing: [scriptedText('Which invoice?'), scriptedText(`Sorry, ${DEFAULT_PHRASE}.`)],
      tech: [scriptedText('Reinstall the app.')],
    });
    const seen: { text: string; participants: { name: string; description: string }[] }[] = [];
    const session = d
      .builder()
      .withUserReplyRouting('lazy', {
        classifier: (text, participants) => {
          seen.push({
            text,
            participants: participants.map((p) => ({ name: p.name, description: p.description })),
          });
          return text.includes('crash') ? Promise.resolve('tech') : 'billing';
        },
      })
      .build()
      .session('function');

    const first = await session.run('I was charged twice');
    const second = await session.run('The app crashes on start');

    expect(pause(first)).toMatchObject({ agent: 'billing', prompt: 'Which invoice?' });
    expect(pause(second)).toMatchObject({ agent: 'tech', prompt: 'Reinstall the app.' });
    expect(seen.map((s) => s.text)).toEqual(['I was charged twice', 'The app crashes on start']);
    expect(seen[0]?.participants).toEqual(
      expect.arrayContaining([
        { name: 'billing', description: 'Invoices, refunds and payments.' },
        { name: 'tech', description: 'Crashes, errors and installation problems.' },
        { name: 'account', description: 'Logins, passwords and profiles.' },
      ]),
    );
    expect(d.triage.client.calls).toHaveLength(0);
    expect(d.billing.client.calls).toHaveLength(2);
    expect(d.tech.client.calls).toHaveLength(1);
  });

  it('rejects run() with an Error naming a pick that is not a participant', async () => {
    const d = desk();
    const workflow = d
      .builder()
      .withUserReplyRouting('lazy', { classifier: () => 'nobody' })
      .build();

    await expect(workflow.session('nobody').run('Hello')).rejects.toThrow(/nobody/);
    expect(d.billing.client.calls).toHaveLength(0);
  });
});

describe('withUserReplyRouting("lazy", { contextTurns })', () => {
  const TURNS = ['u1', 'b1', 'u2', 'b2', 'u3'];

  // u1 → billing b1; u2 → billing b2; u3 → billing says the phrase → tech takes over, picked by
  // the coordinator (asked to hand off) or by a function. Returns the turns tech's first model
  // request carries, in its order (matched as substrings, so a view that prefixes other agents'
  // answers with their name still counts).
  async function handedOver(
    by: 'coordinator' | 'function',
    contextTurns?: number,
  ): Promise<string[]> {
    const d = desk({
      triage: [scriptedToolCall('handoff_to_billing'), scriptedToolCall('handoff_to_tech')],
      billing: [scriptedText('b1'), scriptedText('b2'), scriptedText(`${DEFAULT_PHRASE} (b3)`)],
      tech: [scriptedText('t1')],
    });
    const options = {
      ...(by === 'function' && {
        classifier: (text: string) => (text === 'u3' ? 'tech' : 'billing'),
      }),
      ...(contextTurns !== undefined && { contextTurns }),
    };
    const session = d
      .builder()
      .withUserReplyRouting('lazy', options)
      .build()
      .session(`turns-${by}-${contextTurns ?? 'all'}`);
    await session.run('u1');
    await session.run('u2');
    const result = await session.run('u3');
    expect(pause(result)).toMatchObject({ agent: 'tech', prompt: 't1' });
    const lines = said(d.tech.client.calls[0]);
    return TURNS.map((turn) => ({ turn, at: lines.findIndex((l) => l.includes(turn)) }))
      .filter((t) => t.at >= 0)
      .sort((a, b) => a.at - b.at)
      .map((t) => t.turn);
  }

  describe.each(['coordinator', 'function'] as const)('with a %s classifier', (by) => {
    it('gives the chosen specialist every earlier turn by default', async () => {
      expect(await handedOver(by)).toEqual(TURNS);
    });

    it('gives it only the request that was routed when contextTurns is 1', async () => {
      expect(await handedOver(by, 1)).toEqual(['u3']);
    });

    it('drops the turns older than the last contextTurns', async () => {
      const seen = await handedOver(by, 2);

      expect(seen).toContain('u3');
      expect(seen).not.toContain('u1');
      expect(seen).not.toContain('b1');
    });
  });
});
