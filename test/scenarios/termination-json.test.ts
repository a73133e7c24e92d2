import { describe, expect, it } from 'vitest';

import {
  AndTerminationCondition,
  ConfigError,
  ExternalTermination,
  FunctionalTermination,
  FunctionCallTermination,
  HandoffTermination,
  MaxMessageTermination,
  OrTerminationCondition,
  SourceMatchTermination,
  StopMessageTermination,
  type TerminationCondition,
  TextMentionTermination,
  TextMessageTermination,
  TimeoutTermination,
  TokenUsageTermination,
  terminationFromJSON,
} from '../../src/index.js';
import { handoff, stop, stopMsg, summary, text, thrownBy, viaJSON } from './termination-helpers.js';

const shapes: [string, () => TerminationCondition, unknown][] = [
  [
    'MaxMessageTermination',
    () => new MaxMessageTermination(10),
    { type: 'MaxMessageTermination', maxMessages: 10, includeAgentEvent: false },
  ],
  [
    'MaxMessageTermination with includeAgentEvent',
    () => new MaxMessageTermination(4, { includeAgentEvent: true }),
    { type: 'MaxMessageTermination', maxMessages: 4, includeAgentEvent: true },
  ],
  [
    'TextMentionTermination with sources',
    () => new TextMentionTermination('DONE', { sources: ['critic'] }),
    { type: 'TextMentionTermination', text: 'DONE', sources: ['critic'] },
  ],
  [
    'TextMentionTermination without sources',
    () => new TextMentionTermination('DONE'),
    { type: 'TextMentionTermination', text: 'DONE' },
  ],
  [
    'TokenUsageTermination with one limit',
    () => new TokenUsageTermination({ maxTotalToken: 5000 }),
    { type: 'TokenUsageTermination', maxTotalToken: 5000 },
  ],
  [
    'TokenUsageTermination with every limit',
    () =>
      new TokenUsageTermination({
        maxTotalToken: 5000,
        maxPromptToken: 4000,
        maxCompletionToken: 1000,
      }),
    {
      type: 'TokenUsageTermination',
      maxTotalToken: 5000,
      maxPromptToken: 4000,
      maxCompletionToken: 1000,
    },
  ],
  [
    'TokenUsageTermination with the completion limit only',
    () => new TokenUsageTermination({ maxCompletionToken: 7 }),
    { type: 'TokenUsageTermination', maxCompletionToken: 7 },
  ],
  [
    'TimeoutTermination',
    () => new TimeoutTermination(30),
    { type: 'TimeoutTermination', timeoutSeconds: 30 },
  ],
  [
    'TimeoutTermination with a clock',
    () => new TimeoutTermination(30, { clock: () => 0 }),
    { type: 'TimeoutTermination', timeoutSeconds: 30 },
  ],
  [
    'HandoffTermination',
    () => new HandoffTermination('user'),
    { type: 'HandoffTermination', target: 'user' },
  ],
  [
    'SourceMatchTermination',
    () => new SourceMatchTermination(['critic']),
    { type: 'SourceMatchTermination', sources: ['critic'] },
  ],
  ['ExternalTermination', () => new ExternalTermination(), { type: 'ExternalTermination' }],
  [
    'StopMessageTermination',
    () => new StopMessageTermination(),
    { type: 'StopMessageTermination' },
  ],
  [
    'TextMessageTermination with a source',
    () => new TextMessageTermination('critic'),
    { type: 'TextMessageTermination', source: 'critic' },
  ],
  [
    'TextMessageTermination without a source',
    () => new TextMessageTermination(),
    { type: 'TextMessageTermination' },
  ],
  [
    'FunctionCallTermination',
    () => new FunctionCallTermination('approve'),
    { type: 'FunctionCallTermination', functionName: 'approve' },
  ],
  [
    'OrTerminationCondition',
    () =>
      new OrTerminationCondition([new MaxMessageTermination(10), new TextMentionTermination('X')]),
    {
      type: 'OrTerminationCondition',
      conditions: [
        { type: 'MaxMessageTermination', maxMessages: 10, includeAgentEvent: false },
        { type: 'TextMentionTermination', text: 'X' },
      ],
    },
  ],
  [
    'AndTerminationCondition',
    () =>
      new AndTerminationCondition([new HandoffTermination('user'), new StopMessageTermination()]),
    {
      type: 'AndTerminationCondition',
      conditions: [
        { type: 'HandoffTermination', target: 'user' },
        { type: 'StopMessageTermination' },
      ],
    },
  ],
];

const deeplyNested = {
  type: 'OrTerminationCondition',
  conditions: [
    {
      type: 'AndTerminationCondition',
      conditions: [
        { type: 'TextMentionTermination', text: 'APPROVE', sources: ['reviewer'] },
        {
          type: 'OrTerminationCondition',
          conditions: [
            { type: 'TextMentionTermination', text: 'APPROVE', sources: ['editor'] },
            { type: 'SourceMatchTermination', sources: ['boss', 'owner'] },
          ],
        },
      ],
    },
    {
      type: 'AndTerminationCondition',
      conditions: [
        { type: 'TokenUsageTermination', maxPromptToken: 100, maxCompletionToken: 50 },
        {
          type: 'AndTerminationCondition',
          conditions: [
            { type: 'StopMessageTermination' },
            { type: 'MaxMessageTermination', maxMessages: 3, includeAgentEvent: true },
          ],
        },
      ],
    },
    { type: 'HandoffTermination', target: 'user' },
    { type: 'FunctionCallTermination', functionName: 'approve' },
    { type: 'TextMessageTermination', source: 'critic' },
    { type: 'ExternalTermination' },
    { type: 'TimeoutTermination', timeoutSeconds: 600 },
  ],
};

describe('toJSON()', () => {
  it.each(shapes)('writes %s exactly', (_, make, json) => {
    expect(make().toJSON()).toEqual(json);
  });

  it.each(shapes)('writes %s as plain JSON', (_, make) => {
    const json = make().toJSON();
    expect(viaJSON(json)).toEqual(json);
  });

  it('writes the configuration, not the state', async () => {
    const c = new MaxMessageTermination(2);
    await c.check([text('a'), text('b')]);
    expect(c.toJSON()).toEqual({
      type: 'MaxMessageTermination',
      maxMessages: 2,
      includeAgentEvent: false,
    });
  });

  it('throws ConfigError for FunctionalTermination', () => {
    const error = thrownBy(() => new FunctionalTermination(() => true).toJSON());
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).name).toBe('ConfigError');
  });

  it('throws ConfigError for a combinator that holds a FunctionalTermination', () => {
    const c = new AndTerminationCondition([
      new StopMessageTermination(),
      new OrTerminationCondition([
        new MaxMessageTermination(1),
        new FunctionalTermination(() => true),
      ]),
    ]);
    expect(thrownBy(() => c.toJSON())).toBeInstanceOf(ConfigError);
  });
});

describe('terminationFromJSON()', () => {
  it.each(shapes)('rebuilds %s from its JSON', (_, make, json) => {
    const original = make();
    const rebuilt = terminationFromJSON(viaJSON(original.toJSON()));
    expect(rebuilt.constructor).toBe(original.constructor);
    expect(rebuilt.toJSON()).toEqual(json);
    expect(rebuilt.terminated).toBe(false);
  });

  it('rebuilds a deeply nested Or/And tree exactly', () => {
    const rebuilt = terminationFromJSON(viaJSON(deeplyNested));
    expect(rebuilt).toBeInstanceOf(OrTerminationCondition);
    expect(rebuilt.toJSON()).toEqual(deeplyNested);
    expect(terminationFromJSON(rebuilt.toJSON()).toJSON()).toEqual(deeplyNested);
  });

  it('rebuilds a nested tree that behaves like the original', async () => {
    const original = new MaxMessageTermination(5)
      .or(new StopMessageTermination())
      .and(new TextMentionTermination('APPROVE', { sources: ['critic'] }))
      .or(new HandoffTermination('user'));
    const rebuilt = terminationFromJSON(viaJSON(original.toJSON()));
    const deltas = [
      [text('APPROVE', 'writer')],
      [text('APPROVE', 'critic'), text('b')],
      [handoff('a', 'b')],
      [stopMsg('s')],
    ];
    const seen: [unknown, unknown][] = [];
    for (const delta of deltas) {
      seen.push([summary(await original.check(delta)), summary(await rebuilt.check(delta))]);
    }
    const fired = stop(
      "Text 'APPROVE' mentioned, Maximum number of messages 5 reached, current message count: 5, Stop message received",
      'TextMentionTermination, MaxMessageTermination, StopMessageTermination',
    );
    expect(seen).toEqual([
      [null, null],
      [null, null],
      [null, null],
      [fired, fired],
    ]);
  });

  it('rebuilds conditions that fire as the constructor-built ones do', async () => {
    const c = terminationFromJSON({
      type: 'MaxMessageTermination',
      maxMessages: 2,
      includeAgentEvent: false,
    });
    expect(await c.check([text('a')])).toBeNull();
    expect(summary(await c.check([text('b')]))).toEqual(
      stop(
        'Maximum number of messages 2 reached, current message count: 2',
        'MaxMessageTermination',
      ),
    );
  });

  function configError(input: unknown): ConfigError {
    const error = thrownBy(() => terminationFromJSON(input as never));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).name).toBe('ConfigError');
    return error as ConfigError;
  }

  it.each<[string, unknown, string]>([
    [
      'a bad field of a child',
      {
        type: 'OrTerminationCondition',
        conditions: [
          { type: 'StopMessageTermination' },
          { type: 'MaxMessageTermination', maxMessages: 'ten', includeAgentEvent: false },
        ],
      },
      'conditions[1].maxMessages',
    ],
    [
      'a bad field two levels down',
      {
        type: 'AndTerminationCondition',
        conditions: [
          {
            type: 'OrTerminationCondition',
            conditions: [
              { type: 'StopMessageTermination' },
              { type: 'TextMentionTermination', text: 5 },
            ],
          },
        ],
      },
      'conditions[0].conditions[1].text',
    ],
    [
      'a bad element of sources',
      { type: 'TextMentionTermination', text: 'DONE', sources: ['critic', 7] },
      'sources[1]',
    ],
    [
      'a non-array conditions',
      { type: 'OrTerminationCondition', conditions: { type: 'StopMessageTermination' } },
      'conditions',
    ],
    [
      'an unknown type inside a combinator',
      {
        type: 'AndTerminationCondition',
        conditions: [{ type: 'StopMessageTermination' }, { type: 'NeverTermination' }],
      },
      'conditions[1].type',
    ],
    ['a missing target', { type: 'HandoffTermination' }, 'target'],
    [
      'a non-string functionName',
      { type: 'FunctionCallTermination', functionName: 1 },
      'functionName',
    ],
    [
      'a non-number timeoutSeconds',
      { type: 'TimeoutTermination', timeoutSeconds: '30' },
      'timeoutSeconds',
    ],
    [
      'a non-boolean includeAgentEvent',
      { type: 'MaxMessageTermination', maxMessages: 3, includeAgentEvent: 'yes' },
      'includeAgentEvent',
    ],
  ])('rejects %s with a ConfigError naming the path', (_, input, path) => {
    const error = configError(input);
    expect(error.message).toContain(path);
    expect(error.path).toBe(path);
  });

  it('rejects an unknown type naming the type', () => {
    expect(configError({ type: 'NeverTermination' }).message).toContain('type');
  });

  it('rejects FunctionalTermination, which has no JSON form', () => {
    configError({ type: 'FunctionalTermination' });
  });

  it('rejects a TokenUsageTermination without limits', () => {
    configError({ type: 'TokenUsageTermination' });
  });

  it('rejects input that is not a configuration object', () => {
    for (const input of [null, undefined, 42, 'MaxMessageTermination', [], {}]) configError(input);
  });

  it('rejects values the constructor would reject', () => {
    configError({ type: 'MaxMessageTermination', maxMessages: -1, includeAgentEvent: false });
    configError({
      type: 'OrTerminationCondition',
      conditions: [{ type: 'TokenUsageTermination', maxTotalToken: -5 }],
    });
  });
});
