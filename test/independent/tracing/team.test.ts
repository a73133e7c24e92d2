// Independent black-box tests of API.md §11 on a RoundRobinGroupChat team (issue 16).
import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
  Agent,
  MaxMessageTermination,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
} from '../../../src/index.js';
import { named, one, parentId, type Sdk, startSdk } from './otel.js';

let sdk: Sdk;
beforeAll(() => {
  sdk = startSdk();
});
afterAll(async () => {
  await sdk.stop();
});
beforeEach(() => {
  sdk.exporter.reset();
});

function team() {
  const writer = new Agent({
    name: 'writer',
    client: new ScriptedChatClient(
      [scriptedText('A draft.', { promptTokens: 5, completionTokens: 2 })],
      {
        model: 'w-model',
      },
    ),
  });
  const critic = new Agent({
    name: 'critic',
    // No model name: the chat span is called plain `chat`.
    client: new ScriptedChatClient([
      scriptedText('APPROVE', { promptTokens: 7, completionTokens: 1 }),
    ]),
  });
  return new RoundRobinGroupChat([writer, critic], {
    name: 'review',
    terminationCondition: new MaxMessageTermination(3),
  });
}

const REASON = 'Maximum number of messages 3 reached, current message count: 3';

describe('a round-robin team', () => {
  it('gives one workflow span with one agent span per turn and its model call', async () => {
    const t = team();
    const result = await t.session('team-1').run('Write a haiku.');
    expect(result.status).toBe('terminated');
    expect(result.stopReason).toBe(REASON);
    const spans = sdk.spans();
    const wf = one(spans, 'invoke_workflow review');
    const writer = one(spans, 'invoke_agent writer');
    const critic = one(spans, 'invoke_agent critic');
    expect(parentId(writer)).toBe(wf.spanContext().spanId);
    expect(parentId(critic)).toBe(wf.spanContext().spanId);
    expect(parentId(one(spans, 'chat w-model'))).toBe(writer.spanContext().spanId);
    expect(parentId(one(spans, 'chat'))).toBe(critic.spanContext().spanId);
    expect(spans.map((s) => s.name).sort()).toEqual(
      [
        'chat',
        'chat w-model',
        'invoke_agent critic',
        'invoke_agent writer',
        'invoke_workflow review',
      ].sort(),
    );
  });

  it('a chat span without a model name has no request model pretending to be one', async () => {
    await team().session('team-2').run('Write a haiku.');
    const chat = one(sdk.spans(), 'chat');
    expect(chat.attributes['gen_ai.operation.name']).toBe('chat');
    expect(chat.attributes['gen_ai.usage.input_tokens']).toBe(7);
    expect(chat.attributes['gen_ai.usage.output_tokens']).toBe(1);
    expect(chat.attributes['gen_ai.request.model']).toBeUndefined();
  });

  it('a stop is a baton.termination event and the stop attributes on the workflow span', async () => {
    await team().session('team-3').run('Write a haiku.');
    const spans = sdk.spans();
    const wf = one(spans, 'invoke_workflow review');
    expect(wf.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.conversation.id': 'team-3',
      'baton.workflow.name': 'review',
      'baton.run.status': 'terminated',
      'baton.stop_reason': REASON,
    });
    const terms = wf.events.filter((e) => e.name === 'baton.termination');
    expect(terms).toHaveLength(1);
    expect(terms[0]?.attributes).toEqual({ 'baton.stop_reason': REASON });
    for (const s of spans.filter((x) => x !== wf)) {
      expect(s.events.filter((e) => e.name === 'baton.termination')).toEqual([]);
    }
    expect(spans.flatMap((s) => s.events).filter((e) => e.name === 'baton.handoff')).toEqual([]);
  });

  it('two sessions of one team give two traces with their own conversation ids', async () => {
    const t = team();
    await t.session('team-a').run('one');
    const t2 = team();
    await t2.session('team-b').run('two');
    const wfs = named(sdk.spans(), 'invoke_workflow review');
    expect(wfs.map((w) => w.attributes['gen_ai.conversation.id']).sort()).toEqual([
      'team-a',
      'team-b',
    ]);
    expect(wfs[0]?.spanContext().traceId).not.toBe(wfs[1]?.spanContext().traceId);
    for (const a of sdk.spans().filter((s) => s.name.startsWith('invoke_agent '))) {
      const wf = wfs.find((w) => w.spanContext().spanId === parentId(a));
      expect(wf).toBeDefined();
      expect(a.attributes['gen_ai.conversation.id']).toBe(wf?.attributes['gen_ai.conversation.id']);
    }
  });

  it('spans come from the tracer "baton" at the package version', async () => {
    await team().session('team-scope').run('Write a haiku.');
    const pkg = JSON.parse(
      readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as {
      version: string;
    };
    const spans = sdk.spans();
    expect(spans.length).toBe(5);
    for (const s of spans) {
      expect(s.instrumentationScope.name).toBe('baton');
      expect(s.instrumentationScope.version).toBe(pkg.version);
    }
  });
});
