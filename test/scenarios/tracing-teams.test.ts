import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import {
  Agent,
  HandoffBuilder,
  HandoffTermination,
  handoffMessage,
  MaxMessageTermination,
  MemoryCheckpointStore,
  OpenAIChatClient,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  SelectorGroupChat,
  Swarm,
  TextMentionTermination,
} from '../../src/index.js';
import {
  type OpenAICompatibleServer,
  startOpenAICompatibleServer,
} from '../support/openai-compatible-server.js';
import { installTestTelemetry, only, outline, type TestTelemetry } from '../support/otel-sdk.js';

let otel: TestTelemetry;
beforeAll(() => {
  otel = installTestTelemetry();
});
afterEach(() => otel.clear());
afterAll(() => otel.shutdown());

/** The conversation ids of the workflow and agent spans (chat spans carry none). */
const conversationIds = () =>
  new Set(
    otel
      .spans()
      .filter((s) => !s.name.startsWith('chat'))
      .map((s) => s.attributes['gen_ai.conversation.id']),
  );

describe('tracing teams (API.md §11)', () => {
  it('RoundRobinGroupChat: one agent span per turn and the stop on the workflow span', async () => {
    const writer = new Agent({
      name: 'writer',
      client: new ScriptedChatClient([scriptedText('A draft.')], { model: 'w-model' }),
    });
    const critic = new Agent({
      name: 'critic',
      client: new ScriptedChatClient([scriptedText('APPROVE')], { model: 'c-model' }),
    });
    const team = new RoundRobinGroupChat([writer, critic], {
      name: 'review',
      terminationCondition: new TextMentionTermination('APPROVE'),
    });
    const result = await team.run('Write a haiku.');
    expect(result.stopReason).toBe("Text 'APPROVE' mentioned");
    const spans = otel.spans();
    expect(outline(spans)).toEqual([
      'invoke_workflow review',
      '  invoke_agent writer',
      '    chat w-model',
      '  invoke_agent critic',
      '    chat c-model',
    ]);
    expect(only(spans, 'invoke_workflow review').attributes).toEqual({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.conversation.id': 'default',
      'baton.workflow.name': 'review',
      'baton.run.status': 'terminated',
      'baton.stop_reason': "Text 'APPROVE' mentioned",
    });
    expect(only(spans, 'invoke_workflow review').events).toEqual([
      {
        name: 'baton.termination',
        attributes: { 'baton.stop_reason': "Text 'APPROVE' mentioned" },
      },
    ]);
    expect(only(spans, 'invoke_agent critic').attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'critic',
      'gen_ai.conversation.id': 'default',
    });
  });

  it("SelectorGroupChat: the selector's model call is a chat span of the workflow", async () => {
    const a = new Agent({ name: 'alice', client: new ScriptedChatClient([scriptedText('Hi.')]) });
    const b = new Agent({ name: 'bob', client: new ScriptedChatClient([scriptedText('Yo.')]) });
    const team = new SelectorGroupChat([a, b], {
      client: new ScriptedChatClient([scriptedText('bob')], { model: 'selector-model' }),
      terminationCondition: new MaxMessageTermination(2),
    });
    await team.run('Who speaks?');
    expect(outline(otel.spans())).toEqual([
      'invoke_workflow selector',
      '  chat selector-model',
      '  invoke_agent bob',
      '    chat',
    ]);
  });

  it('Swarm: a handoff is a baton.handoff event, and resuming with the user keeps the conversation id', async () => {
    const agent = new Agent({
      name: 'agent',
      handoffs: ['user'],
      client: new ScriptedChatClient([
        scriptedToolCall('handoff_to_user', {}, 'h1'),
        scriptedText('Booked. TERMINATE'),
      ]),
    });
    const swarm = new Swarm([agent], {
      terminationCondition: new HandoffTermination('user').or(
        new TextMentionTermination('TERMINATE'),
      ),
    });
    const session = swarm.session('trip-1');
    await session.run('Book a flight.');
    await session.run(handoffMessage({ source: 'user', target: 'agent', content: 'To Oslo.' }));
    const spans = otel.spans();
    expect(outline(spans)).toEqual([
      'invoke_workflow swarm',
      '  invoke_agent agent',
      '    chat',
      'invoke_workflow swarm',
      '  invoke_agent agent',
      '    chat',
    ]);
    const turns = spans.filter((s) => s.name === 'invoke_agent agent');
    expect(turns.map((s) => s.events)).toEqual([
      [
        {
          name: 'baton.handoff',
          attributes: { 'baton.handoff.source': 'agent', 'baton.handoff.target': 'user' },
        },
      ],
      [],
    ]);
    expect(
      spans
        .filter((s) => s.name === 'invoke_workflow swarm')
        .map((s) => s.attributes['baton.stop_reason']),
    ).toEqual(['Handoff to user from agent detected.', "Text 'TERMINATE' mentioned"]);
    expect(conversationIds()).toEqual(new Set(['trip-1']));
  });
});

describe('tracing a resumed session (API.md §11)', () => {
  function desk(store: MemoryCheckpointStore, steps: Parameters<typeof scriptedText>[0][]) {
    const triage = new Agent({
      name: 'triage',
      client: new ScriptedChatClient(steps.map((text) => scriptedText(text))),
    });
    return new HandoffBuilder({ name: 'desk', participants: [triage] })
      .coordinator(triage)
      .withCheckpointing(store)
      .build();
  }

  it('gives the spans of every process that runs the session the same gen_ai.conversation.id', async () => {
    const store = new MemoryCheckpointStore();
    const first = await desk(store, ['What is your order number?']).session('case-7').run('Help');
    expect(first.status).toBe('awaiting_input');
    // Another workflow object (another process) resumes the stored session.
    const second = await desk(store, ['Order 42 ships today.']).session('case-7').run('It is 42');
    expect(second.status).toBe('awaiting_input');
    const spans = otel.spans();
    expect(outline(spans)).toEqual([
      'invoke_workflow desk',
      '  invoke_agent triage',
      '    chat',
      'invoke_workflow desk',
      '  invoke_agent triage',
      '    chat',
    ]);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(2);
    expect(
      spans.filter((s) => s.name !== 'chat').map((s) => s.attributes['gen_ai.conversation.id']),
    ).toEqual(['case-7', 'case-7', 'case-7', 'case-7']);
  });
});

describe('tracing OpenAIChatClient (API.md §11)', () => {
  let server: OpenAICompatibleServer;
  beforeAll(async () => {
    server = await startOpenAICompatibleServer({ apiKey: 'sk-test-SECRET-4242' });
  });
  afterAll(() => server.close());

  it('names the model and provider, takes the response model and finish reason from the server, and never records the key', async () => {
    const client = (apiKey: string) =>
      new OpenAIChatClient({ model: 'gpt-test', apiKey, baseURL: server.url, maxRetries: 0 });
    server.reply({ text: 'Hello!', usage: { prompt_tokens: 11, completion_tokens: 3 } });
    const agent = new Agent({ name: 'greeter', client: client('sk-test-SECRET-4242') });
    const workflow = new HandoffBuilder({ name: 'hello', participants: [agent] })
      .coordinator(agent)
      .build();
    await workflow.session('ok').run('Hi');
    expect(only(otel.spans(), 'chat gpt-test').attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.response.model': 'gpt-test',
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.finish_reasons': ['stop'],
    });

    const wrongKey = new Agent({ name: 'greeter', client: client('sk-wrong-SECRET-1313') });
    const failing = new HandoffBuilder({ name: 'hello', participants: [wrongKey] })
      .coordinator(wrongKey)
      .build();
    await expect(failing.session('bad').run('Hi')).rejects.toThrow(
      'Agent "greeter" failed in session "bad"',
    );
    const chat = otel.spans().filter((s) => s.name === 'chat gpt-test')[1];
    expect(chat?.status.code).toBe('error');
    expect(chat?.attributes['error.type']).toBe('Error');
    const everything = JSON.stringify(otel.spans());
    expect(everything).not.toContain('SECRET');
    server.assertNoViolations();
  });
});
