// Lazy routing together with the rest of the runtime, from API.md §5–§7 and issue 7: the compiled
// statechart, termination conditions, streaming and checkpoint stores.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import {
  type AgentMessage,
  AndTerminationCondition,
  type CheckpointStore,
  FileCheckpointStore,
  MemoryCheckpointStore,
  SourceMatchTermination,
  scriptedText,
  scriptedToolCall,
  type TaskResult,
  TextMentionTermination,
} from '../../src/index.js';
import {
  collect,
  DEFAULT_PHRASE,
  type DeskScripts,
  desk,
  pause,
  said,
  texts,
  trail,
} from './routing-contract-helpers.js';

interface StateDefinition {
  readonly key: string;
  readonly states: Readonly<Record<string, StateDefinition>>;
}

function stateKeys(node: StateDefinition): string[] {
  return [node.key, ...Object.values(node.states).flatMap(stateKeys)];
}

describe('HandoffWorkflow statechart with lazy routing', () => {
  it('has a classifying state in the machine and in the Mermaid graph', () => {
    const workflow = desk().builder().withUserReplyRouting('lazy').build();

    expect(stateKeys(workflow.machine.definition)).toContain('classifying');
    expect(workflow.toMermaid()).toContain('classifying');
  });
});

describe('lazy routing with a termination condition', () => {
  const byKeyword = (text: string) => (text.includes('crash') ? 'tech' : 'billing');

  it('stops in the run that reclassified when the new specialist fires the condition', async () => {
    const d = desk({
      billing: [scriptedText('Which invoice?'), scriptedText(`${DEFAULT_PHRASE}.`)],
      tech: [scriptedText('Fixed it. RESOLVED')],
    });
    const session = d
      .builder()
      .withUserReplyRouting('lazy', { classifier: byKeyword })
      .withTerminationCondition(new TextMentionTermination('RESOLVED'))
      .build()
      .session('resolved');

    const first = await session.run('Refund please');
    const second = await session.run('Also it crashes');

    expect(pause(first)).toMatchObject({ status: 'awaiting_input', agent: 'billing' });
    expect(pause(second)).toEqual({
      status: 'terminated',
      agent: undefined,
      prompt: undefined,
      stopReason: "Text 'RESOLVED' mentioned",
    });
    expect(texts(second.messages)).toEqual([
      'user: Also it crashes',
      `billing: ${DEFAULT_PHRASE}.`,
      'tech: Fixed it. RESOLVED',
    ]);
    expect((await session.info()).status).toBe('terminated');
  });

  it('stops on a thread predicate once the reclassified specialist has answered', async () => {
    const d = desk({
      billing: [scriptedText('Which invoice?'), scriptedText(`${DEFAULT_PHRASE}.`)],
      tech: [scriptedText('Reinstall the app.')],
    });
    const session = d
      .builder()
      .withUserReplyRouting('lazy', { classifier: byKeyword })
      .withTerminationCondition(
        (thread) => thread.filter((m) => m.type === 'TextMessage').length >= 5,
      )
      .build()
      .session('predicate');

    const first = await session.run('Refund please');
    const second = await session.run('Also it crashes');

    expect(first.status).toBe('awaiting_input');
    expect(pause(second)).toMatchObject({
      status: 'terminated',
      stopReason: 'Functional termination condition met',
    });
    expect(d.tech.client.calls).toHaveLength(1);
  });

  it('keeps the condition state across the pauses of a lazily routed session', async () => {
    const d = desk({
      billing: [scriptedText('INV-7 noted.'), scriptedText(`${DEFAULT_PHRASE}.`)],
      tech: [scriptedText('Reinstall the app.')],
    });
    const session = d
      .builder()
      .withUserReplyRouting('lazy', { classifier: byKeyword })
      .withTerminationCondition(
        new AndTerminationCondition([
          new TextMentionTermination('INV-7 noted'),
          new SourceMatchTermination(['tech']),
        ]),
      )
      .build()
      .session('and');

    const first = await session.run('Refund INV-7');
    const second = await session.run('Also it crashes');

    expect(first.status).toBe('awaiting_input');
    expect(pause(second)).toMatchObject({
      status: 'terminated',
      stopReason: "Text 'INV-7 noted' mentioned, 'tech' answered",
    });
  });

  it('stops on the phrase-bearing answer itself when that answer fires the condition', async () => {
    // Reading: the phrase answer is an agent response, so the condition sees it as a delta (§5).
    const picks: string[] = [];
    const d = desk({
      billing: [scriptedText('Which invoice?'), scriptedText(`${DEFAULT_PHRASE}.`)],
    });
    const session = d
      .builder()
      .withUserReplyRouting('lazy', {
        classifier: (text) => {
          picks.push(text);
          return byKeyword(text);
        },
      })
      .withTerminationCondition(
        new SourceMatchTermination(['tech']).or(new TextMentionTermination('outside')),
      )
      .build()
      .session('phrase-stops');

    await session.run('Refund please');
    const second = await session.run('Also it crashes');

    expect(pause(second)).toMatchObject({
      status: 'terminated',
      stopReason: "Text 'outside' mentioned",
    });
    expect(picks).toEqual(['Refund please']);
    expect(d.tech.client.calls).toHaveLength(0);
  });

  it('lets the specialist who last talked to the user answer after a stop', async () => {
    // Reading: §5 keeps "the next speaker" after a stop; under lazy routing that is the specialist.
    const d = desk({
      billing: [
        scriptedText('Which invoice?'),
        scriptedText('Refunded. RESOLVED'),
        scriptedText('Sure.'),
      ],
    });
    const session = d
      .builder()
      .withUserReplyRouting('lazy', { classifier: byKeyword })
      .withTerminationCondition(new TextMentionTermination('RESOLVED'))
      .build()
      .session('after-stop');

    await session.run('Refund please');
    const stopped = await session.run('INV-7');
    const again = await session.run('One more question');

    expect(stopped.status).toBe('terminated');
    expect(pause(again)).toMatchObject({
      status: 'awaiting_input',
      agent: 'billing',
      prompt: 'Sure.',
    });
    expect(d.billing.client.calls).toHaveLength(3);
  });
});

describe('lazy routing streamed with runStream()', () => {
  it('yields the messages in order and the TaskResult last, across a reclassification', async () => {
    const d = desk({
      triage: [scriptedToolCall('handoff_to_billing'), scriptedToolCall('handoff_to_tech')],
      billing: [scriptedText('Which invoice?'), scriptedText(`${DEFAULT_PHRASE}.`)],
      tech: [scriptedText('Reinstall the app.')],
    });
    const session = d.builder().withUserReplyRouting('lazy').build().session('stream');

    const runs: {
      items: (AgentMessage | TaskResult)[];
      messages: AgentMessage[];
      result: TaskResult;
    }[] = [];
    for (const task of ['Refund please', 'Also it crashes']) {
      const { items, messages } = await collect(session.runStream(task));
      const last = items.at(-1);
      if (last?.type !== 'TaskResult') throw new Error(`The stream ended with ${last?.type}.`);
      runs.push({ items, messages, result: last });
    }

    for (const { items, messages, result } of runs) {
      expect(items.filter((i) => i.type === 'TaskResult')).toHaveLength(1);
      const kept = messages.filter((m) => m.type !== 'ModelClientStreamingChunkEvent');
      expect(kept.map((m) => m.id)).toEqual(result.messages.map((m) => m.id));
    }
    const second = runs[1]?.result;
    expect(second && pause(second)).toMatchObject({ status: 'awaiting_input', agent: 'tech' });
    expect(
      trail(second?.messages ?? []).filter((t) => /^(TextMessage|UserInputRequestedEvent)/.test(t)),
    ).toEqual([
      'TextMessage(user)',
      'TextMessage(billing)',
      'TextMessage(tech)',
      'UserInputRequestedEvent(tech)',
    ]);
  });
});

const stores: [string, () => Promise<CheckpointStore>][] = [
  ['MemoryCheckpointStore', async () => new MemoryCheckpointStore()],
  [
    'FileCheckpointStore',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'baton-routing-contract-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      return new FileCheckpointStore(dir);
    },
  ],
];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe.each(stores)('lazy routing checkpointed in a %s', (_name, openStore) => {
  const lazyDesk = (store: CheckpointStore, scripts: DeskScripts) => {
    const d = desk(scripts);
    return {
      d,
      workflow: d.builder().withUserReplyRouting('lazy').withCheckpointing(store).build(),
    };
  };

  it('resumes in a fresh workflow after the first classification, with the same specialist', async () => {
    const store = await openStore();
    const before = lazyDesk(store, {
      triage: [scriptedToolCall('handoff_to_billing')],
      billing: [scriptedText('Which invoice?')],
    });
    await before.workflow.session('resume-1').run('I was charged twice');

    const after = lazyDesk(store, { billing: [scriptedText('INV-7 is refunded.')] });
    const session = after.workflow.session('resume-1');
    expect((await session.info()).pendingRequest).toMatchObject({
      agent: 'billing',
      prompt: 'Which invoice?',
    });
    const result = await session.run('INV-7');

    expect(pause(result)).toMatchObject({ agent: 'billing', prompt: 'INV-7 is refunded.' });
    expect(after.d.triage.client.calls).toHaveLength(0);
    expect(said(after.d.billing.client.calls[0])).toEqual(
      expect.arrayContaining(['I was charged twice', 'INV-7']),
    );
    await store.close();
  });

  it('keeps a reclassified route across a resume', async () => {
    const store = await openStore();
    const before = lazyDesk(store, {
      triage: [scriptedToolCall('handoff_to_billing'), scriptedToolCall('handoff_to_tech')],
      billing: [scriptedText('Which invoice?'), scriptedText(`${DEFAULT_PHRASE}.`)],
      tech: [scriptedText('Reinstall the app.')],
    });
    const first = before.workflow.session('resume-2');
    await first.run('Refund please');
    await first.run('Also it crashes');

    const after = lazyDesk(store, { tech: [scriptedText('Then clear the cache.')] });
    const session = after.workflow.session('resume-2');
    const result = await session.run('Still crashes');

    expect(pause(result)).toMatchObject({ agent: 'tech', prompt: 'Then clear the cache.' });
    expect(after.d.triage.client.calls).toHaveLength(0);
    expect(after.d.billing.client.calls).toHaveLength(0);
    expect(texts(await session.messages())).toEqual([
      'user: Refund please',
      'billing: Which invoice?',
      'user: Also it crashes',
      `billing: ${DEFAULT_PHRASE}.`,
      'tech: Reinstall the app.',
      'user: Still crashes',
      'tech: Then clear the cache.',
    ]);
    await store.close();
  });

  it('takes a lazy session over with coordinator routing: the new routing applies from the next turn', async () => {
    // A routing change is compatible (the session's agents, states and tools are all there).
    const store = await openStore();
    const before = lazyDesk(store, {
      triage: [scriptedToolCall('handoff_to_billing')],
      billing: [scriptedText('Which invoice?')],
    });
    await before.workflow.session('resume-3').run('Refund please');

    const other = desk({ triage: [scriptedText('Hello?')] });
    const workflow = other.builder().withCheckpointing(store).build();

    const result = await workflow.session('resume-3').run('INV-7');
    expect(result.pendingRequest).toMatchObject({ agent: 'triage', prompt: 'Hello?' });
    expect(other.triage.client.calls).toHaveLength(1);
    await store.close();
  });
});
