import { describe, expect, it } from 'vitest';

import { ConfigError, HandoffBuilder } from '../../src/index.js';
import { FakeAgent, type SeenTurn, transcript } from '../support/fake-agent.js';

const agent = (
  name: string,
  turns: ConstructorParameters<typeof FakeAgent>[1] = [],
  log?: SeenTurn[],
) => new FakeAgent(name, turns, log);

function buildError(make: () => unknown): ConfigError {
  try {
    make();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('HandoffBuilder.build()', () => {
  it('refuses a workflow without participants', () => {
    const error = buildError(() =>
      new HandoffBuilder({ participants: [] }).coordinator('triage').build(),
    );
    expect(error.message).toBe(
      'HandoffBuilder "handoff" has no participants. Pass at least one agent.',
    );
    expect(error.path).toBe('participants');
  });

  it('refuses duplicate participant names', () => {
    const error = buildError(() =>
      new HandoffBuilder({ name: 'support', participants: [agent('triage'), agent('triage')] })
        .coordinator('triage')
        .build(),
    );
    expect(error.message).toBe(
      'HandoffBuilder "support": two participants are named "triage". Give every agent a unique name.',
    );
  });

  it('refuses a missing coordinator and one that is not a participant', () => {
    expect(() => new HandoffBuilder({ participants: [agent('triage')] }).build()).toThrow(
      'HandoffBuilder "handoff" has no coordinator. Call .coordinator(agent) before build().',
    );
    expect(() =>
      new HandoffBuilder({ participants: [agent('triage')] }).coordinator('boss').build(),
    ).toThrow(
      'HandoffBuilder "handoff": coordinator "boss" is not a participant. Add it to participants or fix the name.',
    );
  });

  it('refuses addHandoff sources and targets that are not participants, and self-handoffs', () => {
    const base = () =>
      new HandoffBuilder({
        name: 'support',
        participants: [agent('triage'), agent('billing')],
      }).coordinator('triage');
    expect(buildError(() => base().addHandoff('refunds', ['billing']).build()).message).toBe(
      'addHandoff("refunds", ...): "refunds" is not a participant of workflow "support". Add it to participants or fix the name.',
    );
    expect(buildError(() => base().addHandoff('billing', ['refunds']).build()).message).toBe(
      'addHandoff("billing", ["refunds"]): "refunds" is not a participant of workflow "support". Add it to participants or fix the name.',
    );
    expect(buildError(() => base().addHandoff('billing', ['billing']).build()).message).toBe(
      'addHandoff("billing", ["billing"]): an agent cannot hand off to itself. Remove "billing" from its targets.',
    );
  });

  it("refuses a generated handoff tool that collides with one of the agent's tools", () => {
    const triage = Object.assign(agent('triage'), { tools: [{ name: 'handoff_to_billing' }] });
    expect(
      buildError(() =>
        new HandoffBuilder({ name: 'support', participants: [triage, agent('billing')] })
          .coordinator(triage)
          .build(),
      ).message,
    ).toBe(
      'HandoffBuilder "support": agent "triage" already has a tool named "handoff_to_billing", the name of its generated handoff to "billing". Rename that tool.',
    );
  });

  it('refuses bad option values with the method named', () => {
    const builder = new HandoffBuilder({ participants: [agent('triage')] });
    expect(() => builder.withMaxTurns(0)).toThrow(
      'withMaxTurns() needs a positive integer, got 0.',
    );
    expect(() => builder.withContextWindow(2.5)).toThrow(
      'withContextWindow() needs a positive integer, got 2.5.',
    );
    expect(() => builder.withToolCallFilter('some' as 'all')).toThrow(
      'withToolCallFilter(): unknown filter "some". Use "handoff", "all" or "none".',
    );
    expect(() => builder.withUserReplyRouting('nobody' as 'coordinator')).toThrow(ConfigError);
    expect(() => new HandoffBuilder({ participants: [{}] as never })).toThrow(
      'HandoffBuilder: participants[0] is not an agent (an object with name and respond()).',
    );
  });
});

describe('HandoffWorkflow topology', () => {
  it('gives the coordinator a handoff to everyone and specialists only their edges, merging repeated calls', async () => {
    const log: SeenTurn[] = [];
    const triage = agent('triage', [{ handoff: 'billing' }], log);
    const billing = agent('billing', [{ handoff: 'account' }], log);
    const tech = agent('tech', [], log);
    const account = agent('account', [{ say: 'done' }], log);
    const workflow = new HandoffBuilder({ participants: [triage, billing, tech, account] })
      .coordinator(triage)
      .addHandoff(billing, [tech])
      .addHandoff('billing', ['account'], { description: 'Account questions' })
      .build();
    await workflow.run('hi');
    expect(log.map((t) => [t.agent, t.handoffs])).toEqual([
      ['triage', ['handoff_to_billing', 'handoff_to_tech', 'handoff_to_account']],
      ['billing', ['handoff_to_tech', 'handoff_to_account']],
      ['account', []],
    ]);
    expect(workflow.handoffTargets.get('billing')).toEqual(['tech', 'account']);
  });

  it('draws the routing graph from the compiled machine', () => {
    const workflow = new HandoffBuilder({
      name: 'support',
      participants: [agent('triage'), agent('billing'), agent('tech')],
    })
      .coordinator('triage')
      .addHandoff('billing', ['tech'])
      .build();
    expect(workflow.toMermaid()).toBe(
      [
        'flowchart LR',
        '  n_user((user))',
        '  n_triage{{"triage"}}',
        '  n_billing["billing"]',
        '  n_tech["tech"]',
        '  n_triage -->|handoff_to_billing| n_billing',
        '  n_triage -->|handoff_to_tech| n_tech',
        '  n_triage -. asks .-> n_user',
        '  n_billing -->|handoff_to_tech| n_tech',
        '  n_billing -. asks .-> n_user',
        '  n_tech -. asks .-> n_user',
        '  n_user -->|message| n_triage',
        '',
      ].join('\n'),
    );
    expect(Object.keys(workflow.machine.root.states)).toEqual([
      'triage',
      'billing',
      'tech',
      'awaitingInput',
      'stopped',
    ]);
  });

  it('keeps an autonomous agent going with the prompt until its turn limit, then asks the user', async () => {
    const log: SeenTurn[] = [];
    const triage = agent('triage', [{ handoff: 'writer' }], log);
    const writer = agent(
      'writer',
      [{ say: 'draft 1' }, { say: 'draft 2' }, { say: 'draft 3' }],
      log,
    );
    const workflow = new HandoffBuilder({ participants: [triage, writer] })
      .coordinator(triage)
      .withAutonomousMode({ agents: ['writer'], turnLimits: { writer: 3 } })
      .build();
    const result = await workflow.run('write something');
    expect(transcript(result.messages).slice(4)).toEqual([
      'TextMessage(writer): draft 1',
      'TextMessage(user): User did not respond. Continue assisting autonomously.',
      'TextMessage(writer): draft 2',
      'TextMessage(user): User did not respond. Continue assisting autonomously.',
      'TextMessage(writer): draft 3',
      'UserInputRequestedEvent(writer): draft 3',
    ]);
    expect(log[2]?.newMessages).toEqual([
      'user: User did not respond. Continue assisting autonomously.',
    ]);
    expect(result.pendingRequest?.agent).toBe('writer');
  });

  it('passes the tool-call filter and context window to every agent turn', async () => {
    const seen: unknown[] = [];
    const triage = agent('triage', [
      (ctx) => {
        seen.push([ctx.toolCallFilter, ctx.contextWindow]);
        return {
          chatMessage: {
            type: 'TextMessage',
            id: 'x',
            source: 'triage',
            createdAt: new Date(0).toISOString(),
            metadata: {},
            content: 'ok',
          },
        };
      },
    ]);
    await new HandoffBuilder({ participants: [triage] })
      .coordinator(triage)
      .withToolCallFilter('all')
      .withContextWindow(6)
      .build()
      .run('hi');
    expect(seen).toEqual([['all', 6]]);
  });
});
