import { describe, expect, it } from 'vitest';

import {
  Agent,
  HandoffBuilder,
  type ModelRequest,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
} from '../../src/index.js';
import { FakeAgent, type SeenTurn, transcript } from '../support/fake-agent.js';

const PHRASE = 'This is outside my area';
const decline = (name: string) =>
  new FakeAgent(
    name,
    Array.from({ length: 60 }, () => ({ say: `${PHRASE}, says ${name}.` })),
  );

describe('lazy routing when specialists decline', () => {
  it('never hands the classifier back an agent that declined in this user turn', async () => {
    const offered: string[][] = [];
    // A classifier model that insists on billing whenever it is offered.
    const triageModel = new ScriptedChatClient((request: ModelRequest) => {
      const names = (request.tools ?? []).map((t) => t.name);
      offered.push(names);
      return scriptedToolCall(
        names.includes('handoff_to_billing') ? 'handoff_to_billing' : (names[0] ?? 'none'),
      );
    });
    const triage = new Agent({ name: 'triage', client: triageModel });
    const workflow = new HandoffBuilder({
      participants: [triage, decline('billing'), decline('tech')],
    })
      .coordinator(triage)
      .withUserReplyRouting('lazy')
      .build();

    const result = await workflow.run('My payment for INV-1002 keeps failing');

    expect(result.status).toBe('awaiting_input');
    expect(result.pendingRequest).toMatchObject({ agent: 'tech', prompt: `${PHRASE}, says tech.` });
    expect(offered).toEqual([['handoff_to_billing', 'handoff_to_tech'], ['handoff_to_tech']]);
    expect(transcript(result.messages).filter((m) => m.startsWith('TextMessage'))).toEqual([
      'TextMessage(user): My payment for INV-1002 keeps failing',
      `TextMessage(billing): ${PHRASE}, says billing.`,
      `TextMessage(tech): ${PHRASE}, says tech.`,
    ]);
  });

  it('asks the user when a classifier picks an agent that declined anyway', async () => {
    const log: SeenTurn[] = [];
    // A router with no model that always hands off to billing.
    const triage = new FakeAgent(
      'triage',
      Array.from({ length: 60 }, () => ({ handoff: 'billing' })),
      log,
    );
    const workflow = new HandoffBuilder({
      participants: [triage, decline('billing'), new FakeAgent('tech', [], log)],
    })
      .coordinator(triage)
      .withUserReplyRouting('lazy')
      .build();
    const result = await workflow.run('help');
    expect(result.status).toBe('awaiting_input');
    expect(log.map((t) => t.agent)).toEqual(['triage', 'triage']);
    expect(log[1]?.handoffs).toEqual(['handoff_to_tech']);
    expect(
      result.messages.filter((m) => m.type === 'TextMessage' && m.source === 'billing'),
    ).toHaveLength(1);
  });

  it('gives a function classifier only the agents that have not declined, and asks the user when none is left', async () => {
    const seen: string[][] = [];
    const workflow = new HandoffBuilder({
      participants: [decline('triage'), decline('billing'), decline('tech')],
    })
      .coordinator('triage')
      .withUserReplyRouting('lazy', {
        classifier: (_text, participants) => {
          const names = participants.map((p) => p.name);
          seen.push(names);
          return names.includes('billing') ? 'billing' : names.includes('tech') ? 'tech' : 'triage';
        },
      })
      .build();
    const first = await workflow.run('My payment keeps failing');
    expect(seen).toEqual([['triage', 'billing', 'tech'], ['triage', 'tech'], ['triage']]);
    expect(first.status).toBe('awaiting_input');
    expect(first.pendingRequest?.agent).toBe('triage');
    expect(first.messages.length).toBeLessThan(12);
  });

  it('counts declines per user turn: the next reply starts with everyone offered again', async () => {
    const offered: string[][] = [];
    const triageModel = new ScriptedChatClient((request: ModelRequest) => {
      const names = (request.tools ?? []).map((t) => t.name);
      offered.push(names);
      return names.length > 0 ? scriptedToolCall(names[0] as string) : scriptedText('?');
    });
    const workflow = new HandoffBuilder({
      participants: [
        new Agent({ name: 'triage', client: triageModel }),
        decline('billing'),
        decline('tech'),
      ],
    })
      .coordinator('triage')
      .withUserReplyRouting('lazy')
      .build();
    await workflow.run('first');
    await workflow.run('second');
    // The reply goes to tech (lazy routing), who declines it: only billing is offered.
    expect(offered).toEqual([
      ['handoff_to_billing', 'handoff_to_tech'],
      ['handoff_to_tech'],
      ['handoff_to_billing'],
    ]);
  });
});
