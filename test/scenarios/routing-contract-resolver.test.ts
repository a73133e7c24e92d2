// An independent black-box suite of structured-output routing (`withResolver({ agent, schema,
// resolve })`, API.md §6) and of the routing options' validation, written from API.md and issue 7.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  ConfigError,
  HandoffBuilder,
  MemoryCheckpointStore,
  SourceMatchTermination,
  scriptedText,
} from '../../src/index.js';
import {
  collect,
  type DeskScripts,
  desk,
  pause,
  said,
  scripted,
  scriptedJson,
  toolNames,
} from './routing-contract-helpers.js';

const Route = z.object({
  route: z.enum(['billing', 'tech', 'account', 'nobody']).nullable(),
  reply: z.string(),
});
type Route = z.output<typeof Route>;

/** A desk whose coordinator routes through `withResolver`, recording what `resolve` is given. */
function resolverDesk(scripts: DeskScripts, configure = (b: HandoffBuilder) => b) {
  const d = desk(scripts);
  const resolved: Route[] = [];
  const builder = d.builder().withResolver({
    schema: Route,
    resolve: (output) => {
      resolved.push(output);
      return output.route;
    },
  });
  return { d, resolved, workflow: configure(builder).build() };
}

describe('withResolver() with the coordinator as resolver', () => {
  it('asks for the schema as output format, offers no handoff tools, and routes', async () => {
    const { d, resolved, workflow } = resolverDesk({
      triage: [scriptedJson({ route: 'billing', reply: '' })],
      billing: [scriptedText('Which invoice?')],
    });

    const result = await workflow.session('schema').run('I was charged twice');

    expect(pause(result)).toEqual({
      status: 'awaiting_input',
      agent: 'billing',
      prompt: 'Which invoice?',
      stopReason: null,
    });
    const [call] = d.triage.client.calls;
    expect(call?.outputSchema).toMatchObject({
      type: 'object',
      properties: { route: expect.anything(), reply: { type: 'string' } },
    });
    expect(toolNames(call).filter((name) => name.startsWith('handoff_'))).toEqual([]);
    expect(said(call)).toContain('I was charged twice');
    expect(resolved).toEqual([{ route: 'billing', reply: '' }]);
    expect(said(d.billing.client.calls[0])).toContain('I was charged twice');
  });

  it('lets the resolver answer the user itself when resolve() returns null', async () => {
    const { d, resolved, workflow } = resolverDesk({
      triage: [scriptedJson({ route: null, reply: 'Could you tell me more?' })],
    });

    const result = await workflow.session('null').run('Hello');

    expect(pause(result)).toMatchObject({ status: 'awaiting_input', agent: 'triage' });
    expect(result.pendingRequest?.prompt).toContain('Could you tell me more?');
    const requests = result.messages.filter((m) => m.type === 'UserInputRequestedEvent');
    expect(requests.map((m) => m.source)).toEqual(['triage']);
    expect(resolved).toEqual([{ route: null, reply: 'Could you tell me more?' }]);
    expect(d.billing.client.calls).toHaveLength(0);
  });

  it('routes each user reply through the resolver again', async () => {
    // Reading: the reply routing stays "coordinator" (the default), so every reply is resolved.
    const { d, resolved, workflow } = resolverDesk({
      triage: [
        scriptedJson({ route: 'billing', reply: '' }),
        scriptedJson({ route: 'tech', reply: '' }),
      ],
      billing: [scriptedText('Which invoice?')],
      tech: [scriptedText('Reinstall the app.')],
    });
    const session = workflow.session('twice');

    await session.run('I was charged twice');
    const second = await session.run('Also the app crashes');

    expect(pause(second)).toMatchObject({ agent: 'tech', prompt: 'Reinstall the app.' });
    expect(resolved.map((r) => r.route)).toEqual(['billing', 'tech']);
    expect(d.triage.client.calls).toHaveLength(2);
    expect(d.triage.client.calls[1]?.outputSchema).toBeDefined();
    expect(said(d.triage.client.calls[1])).toContain('Also the app crashes');
  });

  it('streams the run with the TaskResult last', async () => {
    const { workflow } = resolverDesk({
      triage: [scriptedJson({ route: 'billing', reply: '' })],
      billing: [scriptedText('Which invoice?')],
    });

    const { items, messages } = await collect(workflow.session('stream').runStream('Refund'));

    const last = items.at(-1);
    expect(last?.type).toBe('TaskResult');
    if (last?.type !== 'TaskResult') return;
    expect(pause(last)).toMatchObject({ agent: 'billing' });
    expect(messages.map((m) => m.id)).toEqual(last.messages.map((m) => m.id));
  });

  it('rejects run() with an Error naming a resolved target that is not a participant', async () => {
    const { d, workflow } = resolverDesk({
      triage: [scriptedJson({ route: 'nobody', reply: '' })],
    });

    const run = workflow.session('nobody').run('Hello');

    await expect(run).rejects.toBeInstanceOf(Error);
    await expect(run).rejects.toThrow(/"?nobody"?/);
    expect(d.billing.client.calls).toHaveLength(0);
  });
});

describe('withResolver({ agent })', () => {
  it('asks the given participant instead of the coordinator', async () => {
    const triage = scripted('triage');
    const router = scripted('router', [scriptedJson({ route: 'billing', reply: '' })]);
    const billing = scripted('billing', [scriptedText('Which invoice?')]);
    const workflow = new HandoffBuilder({
      participants: [triage.agent, router.agent, billing.agent],
    })
      .coordinator(triage.agent)
      .withResolver({ agent: 'router', schema: Route, resolve: (output) => output.route })
      .build();

    const result = await workflow.session('router').run('I was charged twice');

    expect(pause(result)).toMatchObject({ agent: 'billing', prompt: 'Which invoice?' });
    expect(triage.client.calls).toHaveLength(0);
    expect(router.client.calls).toHaveLength(1);
    expect(router.client.calls[0]?.outputSchema).toMatchObject({ type: 'object' });
    expect(toolNames(router.client.calls[0]).filter((n) => n.startsWith('handoff_'))).toEqual([]);
  });
});

describe('withResolver() with a termination condition', () => {
  it('keeps the condition across pauses and stops when it fires', async () => {
    const { d, workflow } = resolverDesk(
      {
        triage: [
          scriptedJson({ route: 'billing', reply: '' }),
          scriptedJson({ route: 'tech', reply: '' }),
        ],
        billing: [scriptedText('Which invoice?')],
        tech: [scriptedText('Reinstall the app.')],
      },
      (b) => b.withTerminationCondition(new SourceMatchTermination(['tech'])),
    );
    const session = workflow.session('stop');

    const first = await session.run('I was charged twice');
    const second = await session.run('Also the app crashes');

    expect(pause(first)).toMatchObject({ status: 'awaiting_input', agent: 'billing' });
    expect(pause(second)).toEqual({
      status: 'terminated',
      agent: undefined,
      prompt: undefined,
      stopReason: "'tech' answered",
    });
    expect(d.tech.client.calls).toHaveLength(1);
  });
});

describe('withResolver() with a checkpoint store', () => {
  it('resumes in a fresh workflow and resolves the next reply there', async () => {
    const store = new MemoryCheckpointStore();
    const before = resolverDesk(
      {
        triage: [scriptedJson({ route: 'billing', reply: '' })],
        billing: [scriptedText('Which invoice?')],
      },
      (b) => b.withCheckpointing(store),
    );
    await before.workflow.session('resume').run('I was charged twice');

    const after = resolverDesk(
      {
        triage: [scriptedJson({ route: 'tech', reply: '' })],
        tech: [scriptedText('Reinstall the app.')],
      },
      (b) => b.withCheckpointing(store),
    );
    const session = after.workflow.session('resume');
    expect((await session.info()).pendingRequest).toMatchObject({
      agent: 'billing',
      prompt: 'Which invoice?',
    });
    const result = await session.run('Also the app crashes');

    expect(pause(result)).toMatchObject({ agent: 'tech', prompt: 'Reinstall the app.' });
    expect(after.resolved.map((r) => r.route)).toEqual(['tech']);
    expect(after.d.triage.client.calls[0]?.outputSchema).toBeDefined();
    expect(after.d.billing.client.calls).toHaveLength(0);
    expect(said(after.d.tech.client.calls[0])).toEqual(
      expect.arrayContaining([
        'I was charged twice',
        '[billing]: Which invoice?',
        'Also the app crashes',
      ]),
    );
  });

  it('takes a resolver session over with a workflow that has no resolver', async () => {
    // A routing change is compatible: the coordinator routes from the next turn on.
    const store = new MemoryCheckpointStore();
    const before = resolverDesk(
      {
        triage: [scriptedJson({ route: 'billing', reply: '' })],
        billing: [scriptedText('Which invoice?')],
      },
      (b) => b.withCheckpointing(store),
    );
    await before.workflow.session('mismatch').run('I was charged twice');

    const other = desk({ triage: [scriptedText('Hello?')] });
    const workflow = other.builder().withCheckpointing(store).build();

    const result = await workflow.session('mismatch').run('INV-7');
    expect(result.pendingRequest).toMatchObject({ agent: 'triage', prompt: 'Hello?' });
    expect(other.triage.client.calls).toHaveLength(1);
  });
});

describe('routing options', () => {
  const lazy = (options: object) => () =>
    desk().builder().withUserReplyRouting('lazy', options).build();

  it.each([0, -1, 1.5, Number.NaN, '2'])('rejects contextTurns %s with a ConfigError', (n) => {
    expect(lazy({ contextTurns: n })).toThrow(ConfigError);
    expect(lazy({ contextTurns: n })).toThrow(/contextTurns/);
  });

  it('rejects a handoffPhrase that is neither a non-empty string nor a RegExp', () => {
    // Reading: an empty phrase would be "contained" in every answer, so it is a bad option.
    for (const handoffPhrase of ['', 42]) {
      expect(lazy({ handoffPhrase })).toThrow(ConfigError);
      expect(lazy({ handoffPhrase })).toThrow(/handoffPhrase/);
    }
  });

  it('rejects a classifier that is neither a ChatAgent nor a function', () => {
    expect(lazy({ classifier: 42 })).toThrow(ConfigError);
    expect(lazy({ classifier: 42 })).toThrow(/classifier/);
  });

  it('rejects an unknown reply routing mode', () => {
    const build = () =>
      desk()
        .builder()
        .withUserReplyRouting('sometimes' as never)
        .build();
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(/sometimes/);
  });

  const resolver = (options: object) => () =>
    desk()
      .builder()
      .withResolver({ schema: Route, resolve: () => null, ...options } as never)
      .build();

  it('rejects a resolver agent that is not a participant, naming it', () => {
    expect(resolver({ agent: 'nobody' })).toThrow(ConfigError);
    expect(resolver({ agent: 'nobody' })).toThrow(/nobody/);
  });

  it('rejects a resolver without a zod schema or a resolve function', () => {
    expect(resolver({ schema: undefined })).toThrow(ConfigError);
    expect(resolver({ schema: { type: 'object' } })).toThrow(ConfigError);
    expect(resolver({ resolve: 'billing' })).toThrow(ConfigError);
    expect(resolver({ resolve: 'billing' })).toThrow(/resolve/);
  });
});
