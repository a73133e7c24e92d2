// Issue 27 #21 and #33: routing faults that are the workflow author's are ConfigErrors — at
// build() when the configuration shows them, at run time when only the run does.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  ConfigError,
  HandoffBuilder,
  HandoffTermination,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  SelectorGroupChat,
  Swarm,
  TextMentionTermination,
} from '../../src/index.js';
import { FakeAgent } from '../support/fake-agent.js';

/** What `run` threw (it must throw). */
async function thrownBy(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the run to reject');
}

function built(build: () => unknown): Error {
  try {
    build();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected build() to throw');
}

/** An agent whose own handoffs include `refunds`, which is not a participant. */
function triageToRefunds(): Agent {
  return new Agent({
    name: 'triage',
    client: new ScriptedChatClient([scriptedToolCall('handoff_to_refunds', {}), scriptedText('x')]),
    handoffs: ['billing', 'refunds'],
  });
}

describe('an agent handoff to a target that is not a participant', () => {
  it('is a ConfigError at HandoffBuilder.build(), naming agent and target', () => {
    const billing = new FakeAgent('billing', []);
    const error = built(() =>
      new HandoffBuilder({ name: 'support', participants: [triageToRefunds(), billing] })
        .coordinator('triage')
        .build(),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      'HandoffBuilder "support": agent "triage" hands off to "refunds", which is not a ' +
        'participant ("triage", "billing") nor "user". Add "refunds" to the participants or ' +
        "remove it from the agent's handoffs.",
    );
    expect((error as ConfigError).path).toBe('participants[0].handoffs');
  });

  it('is a ConfigError at new Swarm(), naming agent and target', () => {
    const billing = new FakeAgent('billing', []);
    const error = built(
      () =>
        new Swarm([triageToRefunds(), billing], {
          name: 'desk',
          terminationCondition: new HandoffTermination('human'),
        }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      'Swarm "desk": agent "triage" hands off to "refunds", which is not a participant ' +
        '("triage", "billing") nor "user" or "human". Add "refunds" to the participants or ' +
        "remove it from the agent's handoffs.",
    );
  });

  it('is allowed to the user and to a HandoffTermination target of a Swarm', async () => {
    const agent = new Agent({
      name: 'agent',
      client: new ScriptedChatClient([scriptedToolCall('handoff_to_human', {})]),
      handoffs: ['user', 'human'],
    });
    const team = new Swarm([agent], {
      terminationCondition: new TextMentionTermination('DONE').or(new HandoffTermination('human')),
    });
    const result = await team.run('help');
    expect(result.stopReason).toBe('Handoff to human from agent detected.');
  });
});

describe('routing at run time that the workflow forbids', () => {
  it('a handoff outside the topology rejects the run with a ConfigError', async () => {
    const workflow = new HandoffBuilder({
      name: 'support',
      participants: [
        new FakeAgent('triage', [{ handoff: 'billing' }]),
        new FakeAgent('billing', [{ handoff: 'tech' }]),
        new FakeAgent('tech', []),
      ],
    })
      .coordinator('triage')
      .build();
    const error = await thrownBy(() => workflow.run('help'));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      'Agent "billing" handed off to "tech", which workflow "support" does not allow. Allowed ' +
        'targets of "billing": none. Add the edge with addHandoff() or fix the agent.',
    );
  });

  it('a classifier function returning an unknown name rejects the run with a ConfigError', async () => {
    const workflow = new HandoffBuilder({
      name: 'support',
      participants: [new FakeAgent('triage', []), new FakeAgent('billing', [])],
    })
      .coordinator('triage')
      .withUserReplyRouting('lazy', { classifier: () => 'refunds' })
      .build();
    const error = await thrownBy(() => workflow.run('help'));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      'The classifier of workflow "support" returned "refunds", which is not a participant ' +
        '(triage, billing). Make the classifier return one of the names it is given.',
    );
  });

  it('a resolver returning an unknown name rejects the run with a ConfigError', async () => {
    const triage = new Agent({
      name: 'triage',
      client: new ScriptedChatClient([scriptedText('{"route":"tech"}')]),
    });
    const workflow = new HandoffBuilder({
      name: 'support',
      participants: [triage, new FakeAgent('billing', [])],
    })
      .coordinator(triage)
      .withResolver({ schema: z.object({ route: z.string() }), resolve: (out) => out.route })
      .build();
    const error = await thrownBy(() => workflow.run('help'));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      'The router of workflow "support" chose "tech", which is not a participant it can route ' +
        "to (billing). Make withResolver()'s resolve return one of them or null.",
    );
  });

  it('a selectorFunc returning an unknown name rejects the run with a ConfigError', async () => {
    const team = new SelectorGroupChat([new FakeAgent('a', [])], { selectorFunc: () => 'zed' });
    const error = await thrownBy(() => team.run('go'));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      'SelectorGroupChat: selectorFunc returned "zed", which is not a participant (a). Return ' +
        'one of their names, or nothing to let the model choose.',
    );
  });
});
