// An independent black-box suite of HandoffBuilder / HandoffWorkflow behaviours, written from
// API.md §5 and §6 only. Everything comes from the package entry; agents run on ScriptedChatClient.

import { describe, expect, expectTypeOf, it } from 'vitest';
import { StateMachine } from 'xstate';
import { z } from 'zod';

import {
  Agent,
  type AgentContext,
  type AgentMessage,
  type ChatAgent,
  ConfigError,
  HandoffBuilder,
  HandoffTermination,
  type HandoffWorkflow,
  handoffMessage,
  type LLMMessage,
  MaxMessageTermination,
  messageToText,
  type ScriptedCall,
  ScriptedChatClient,
  type ScriptedStep,
  type ScriptedSteps,
  SessionBusyError,
  type StopMessage,
  scriptedText,
  scriptedToolCall,
  stopMessage,
  type TaskResult,
  TerminatedError,
  TerminationCondition,
  textMessage,
  tool,
  toolCallExecutionEvent,
  toolCallRequestEvent,
} from '../../src/index.js';

const moved = (target: string) =>
  `Transferred to ${target}, adopting the role of ${target} immediately.`;
const AUTONOMOUS_PROMPT = 'User did not respond. Continue assisting autonomously.';

const lookupInvoice = tool({
  name: 'lookup_invoice',
  description: 'Finds an invoice by id.',
  parameters: z.object({ invoiceId: z.string() }),
  execute: ({ invoiceId }) => `Invoice ${invoiceId}: 40 EUR, unpaid`,
});

interface Scripted {
  agent: Agent;
  client: ScriptedChatClient;
}

function scripted(
  name: string,
  steps: ScriptedSteps,
  options: Omit<ConstructorParameters<typeof Agent>[0], 'name' | 'client'> = {},
): Scripted {
  const client = new ScriptedChatClient(steps);
  return { agent: new Agent({ name, client, ...options }), client };
}

/** A step that hands off, with a fixed call id. */
const handoffStep = (target: string, id = `call_to_${target}`, usage = zero()): ScriptedStep => ({
  ...scriptedToolCall(`handoff_to_${target}`, {}, id),
  usage,
});
const zero = () => ({ promptTokens: 0, completionTokens: 0 });

/** A step function that never resolves until the request's signal aborts it. */
function blocking(): { steps: () => Promise<ScriptedStep>; entered: Promise<void> } {
  let enter!: () => void;
  const entered = new Promise<void>((resolve) => {
    enter = resolve;
  });
  return {
    entered,
    steps: () => {
      enter();
      return new Promise<ScriptedStep>(() => {});
    },
  };
}

/** The contract-level facts of a message: no ids, dates, usage, metadata or handoff context. */
function essence(m: AgentMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { type: m.type, source: m.source, content: m.content };
  if (m.type === 'HandoffMessage') out.target = m.target;
  if (m.type === 'UserInputRequestedEvent') out.requestId = m.requestId;
  return out;
}
const label = (m: AgentMessage) => `${m.type}:${m.source}`;

/** A model request's messages in a compact, exact form. */
function view(call: ScriptedCall | undefined): string[] {
  return (call?.messages ?? []).map((m: LLMMessage) => {
    if (m.role === 'tool') return `tool result for ${m.toolCallId}`;
    if (m.role === 'assistant' && m.toolCalls !== undefined && m.toolCalls.length > 0) {
      return `assistant calls ${m.toolCalls.map((c) => `${c.name}(${c.id})`).join(', ')}`;
    }
    return `${m.role}: ${m.content}`;
  });
}
const toolLines = (call: ScriptedCall | undefined) =>
  view(call).filter((line) => line.startsWith('tool ') || line.startsWith('assistant calls'));
/** Another agent's calls, which a view shows as the text of a user turn (one line per call). */
const calledLines = (call: ScriptedCall | undefined) =>
  view(call)
    .filter((line) => /^user: \[[^\]]+\] called /.test(line))
    .flatMap((line) => line.slice('user: '.length).split('\n'));
const toolNames = (call: ScriptedCall | undefined) => (call?.tools ?? []).map((t) => t.name).sort();

/** Tool call ids without a result, and results without a call, in a model request. */
function unpaired(call: ScriptedCall | undefined): { dangling: string[]; orphans: string[] } {
  const calls: string[] = [];
  const results: string[] = [];
  for (const m of call?.messages ?? []) {
    if (m.role === 'assistant') calls.push(...(m.toolCalls ?? []).map((c) => c.id));
    if (m.role === 'tool') results.push(m.toolCallId);
  }
  return {
    dangling: calls.filter((id) => !results.includes(id)),
    orphans: results.filter((id) => !calls.includes(id)),
  };
}

/** triage (coordinator), billing and tech; billing may escalate to tech. */
function desk(
  scripts: { triage: ScriptedSteps; billing?: ScriptedSteps; tech?: ScriptedSteps },
  configure: (builder: HandoffBuilder) => HandoffBuilder = (b) => b,
) {
  const triage = scripted('triage', scripts.triage);
  const billing = scripted('billing', scripts.billing ?? [], { tools: [lookupInvoice] });
  const tech = scripted('tech', scripts.tech ?? []);
  const builder = new HandoffBuilder({
    name: 'support',
    participants: [triage.agent, billing.agent, tech.agent],
  })
    .coordinator(triage.agent)
    .addHandoff(billing.agent, [tech.agent]);
  return { workflow: configure(builder).build(), triage, billing, tech };
}

/** The arrows of a Mermaid flowchart or state diagram as `from -> to`, by node label. */
function mermaidEdges(text: string): string[] {
  const labels = new Map<string, string>();
  for (const m of text.matchAll(/^\s*([\w-]+)\s*[[({>]+"?([^"\])}]+?)"?[\])}]+\s*$/gm)) {
    labels.set(m[1] ?? '', m[2] ?? '');
  }
  for (const m of text.matchAll(/^\s*state\s+"([^"]+)"\s+as\s+([\w-]+)/gm)) {
    labels.set(m[2] ?? '', m[1] ?? '');
  }
  const name = (id: string) => labels.get(id) ?? id;
  const arrow = /^\s*([\w-]+)\s*(?:--+>|==+>|-\.[^\n]*?\.->)\s*(?:\|[^|]*\|\s*)?([\w-]+)/gm;
  return [...text.matchAll(arrow)].map((m) => `${name(m[1] ?? '')} -> ${name(m[2] ?? '')}`);
}

async function collect(stream: AsyncIterable<AgentMessage | TaskResult>) {
  const items: (AgentMessage | TaskResult)[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

function buildError(builder: HandoffBuilder): unknown {
  try {
    builder.build();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Records every delta it is given and fires on a word; its fired flag is its saved state. */
class RecordingCondition extends TerminationCondition {
  readonly deltas: string[][] = [];
  readonly #word: string;
  #fired = false;

  constructor(word: string) {
    super();
    this.#word = word;
  }
  get terminated(): boolean {
    return this.#fired;
  }
  async check(messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    if (this.#fired) throw new TerminatedError();
    this.deltas.push(messages.map(label));
    if (!messages.some((m) => messageToText(m).includes(this.#word))) return null;
    this.#fired = true;
    return stopMessage({ source: 'RecordingCondition', content: `Saw ${this.#word}` });
  }
  reset(): void {
    this.#fired = false;
  }
  override saveState(): unknown {
    return { fired: this.#fired };
  }
  override loadState(state: unknown): void {
    this.#fired = (state as { fired?: boolean } | null)?.fired === true;
  }
}

describe('HandoffBuilder', () => {
  describe('topology', () => {
    it('gives the coordinator a tool per other participant and a specialist only its merged addHandoff targets', async () => {
      const triage = scripted('triage', [handoffStep('billing')]);
      const billing = scripted('billing', [handoffStep('tech')], { tools: [lookupInvoice] });
      const tech = scripted('tech', [scriptedText('Restart the router.')]);
      const account = scripted('account', []);
      const workflow = new HandoffBuilder({
        participants: [triage.agent, billing.agent, tech.agent, account.agent],
      })
        .coordinator('triage')
        .addHandoff(billing.agent, [tech.agent], { description: 'Escalate app faults to tech.' })
        .addHandoff('billing', ['account'])
        .build();

      const result = await workflow.run('The app charges me twice');

      expectTypeOf(workflow).toEqualTypeOf<HandoffWorkflow>();

      expect(result.status).toEqual('awaiting_input');
      expect(toolNames(triage.client.calls[0])).toEqual([
        'handoff_to_account',
        'handoff_to_billing',
        'handoff_to_tech',
      ]);
      expect(toolNames(billing.client.calls[0])).toEqual([
        'handoff_to_account',
        'handoff_to_tech',
        'lookup_invoice',
      ]);
      expect(toolNames(tech.client.calls[0])).toEqual([]);
      expect(
        billing.client.calls[0]?.tools?.find((t) => t.name === 'handoff_to_tech')?.description,
      ).toEqual('Escalate app faults to tech.');
    });

    it('adds handoff tools for one workflow only and leaves the agent object unchanged', async () => {
      const billing = scripted('billing', () => scriptedText('Billing here.'), {
        tools: [lookupInvoice],
      });
      const before = Object.entries(billing.agent).map(([k, v]) => [
        k,
        Array.isArray(v) ? [...v] : v,
      ]);
      const triage = scripted('triage', [handoffStep('billing')]);
      const tech = scripted('tech', []);
      const account = scripted('account', []);
      const first = new HandoffBuilder({ participants: [triage.agent, billing.agent, tech.agent] })
        .coordinator(triage.agent)
        .addHandoff(billing.agent, [tech.agent])
        .build();
      const second = new HandoffBuilder({ participants: [billing.agent, account.agent] })
        .coordinator(billing.agent)
        .build();

      await first.run('Invoice question');
      await second.run('Another invoice question');
      const alone: AgentContext = {
        conversation: [textMessage({ source: 'user', content: 'Hello' })],
        newMessages: [textMessage({ source: 'user', content: 'Hello' })],
        signal: new AbortController().signal,
        sessionId: 'solo',
        emit: () => {},
      };
      await billing.agent.respond(alone);

      expect(billing.client.calls.map(toolNames)).toEqual([
        ['handoff_to_tech', 'lookup_invoice'],
        ['handoff_to_account', 'lookup_invoice'],
        ['lookup_invoice'],
      ]);
      expect(
        Object.entries(billing.agent).map(([k, v]) => [k, Array.isArray(v) ? [...v] : v]),
      ).toEqual(before);
    });
    it('treats a handoff the topology does not allow as an unknown tool, with another try', async () => {
      const { workflow, triage } = desk({
        triage: [handoffStep('billing')],
        billing: [handoffStep('triage', 'call_back'), scriptedText('Which invoice is it?')],
      });

      const result = await workflow.run('My invoice is wrong');

      const executions = result.messages.filter(
        (m) => m.type === 'ToolCallExecutionEvent' && m.source === 'billing',
      );
      expect(executions.map((m) => m.content)).toEqual([
        [
          {
            callId: 'call_back',
            name: 'handoff_to_triage',
            content: expect.stringMatching(/handoff_to_triage/),
            isError: true,
          },
        ],
      ]);
      expect(result.messages.filter((m) => m.type === 'HandoffMessage')).toHaveLength(1);
      expect([result.status, result.pendingRequest?.agent]).toEqual(['awaiting_input', 'billing']);
      expect(result.pendingRequest?.prompt).toBe('Which invoice is it?');
      expect(triage.client.calls).toHaveLength(1);
    });
  });

  describe('build()', () => {
    const agents = () => ({
      triage: scripted('triage', []).agent,
      billing: scripted('billing', []).agent,
      tech: scripted('tech', []).agent,
      outsider: scripted('outsider', []).agent,
    });
    const cases: [string, () => HandoffBuilder, RegExp[]][] = [
      ['no participants', () => new HandoffBuilder({ participants: [] }), [/participant/i]],
      [
        'duplicate names',
        () => {
          const a = agents();
          const twin = scripted('billing', []).agent;
          return new HandoffBuilder({ participants: [a.triage, a.billing, twin] }).coordinator(
            a.triage,
          );
        },
        [/\bbilling\b/],
      ],
      [
        'no coordinator',
        () => {
          const a = agents();
          return new HandoffBuilder({ participants: [a.triage, a.billing] });
        },
        [/coordinator/i],
      ],
      [
        'a coordinator named but not a participant',
        () => {
          const a = agents();
          return new HandoffBuilder({ participants: [a.triage, a.billing] }).coordinator('ghost');
        },
        [/\bghost\b/],
      ],
      [
        'a coordinator agent that is not a participant',
        () => {
          const a = agents();
          return new HandoffBuilder({ participants: [a.triage, a.billing] }).coordinator(
            a.outsider,
          );
        },
        [/\boutsider\b/],
      ],
      [
        'an addHandoff source that is not a participant',
        () => {
          const a = agents();
          return new HandoffBuilder({ participants: [a.triage, a.billing, a.tech] })
            .coordinator(a.triage)
            .addHandoff(a.outsider, [a.tech]);
        },
        [/\boutsider\b/],
      ],
      [
        'an addHandoff target that is not a participant',
        () => {
          const a = agents();
          return new HandoffBuilder({ participants: [a.triage, a.billing, a.tech] })
            .coordinator(a.triage)
            .addHandoff(a.billing, [a.outsider]);
        },
        [/\boutsider\b/],
      ],
      [
        'a handoff to itself',
        () => {
          const a = agents();
          return new HandoffBuilder({ participants: [a.triage, a.billing, a.tech] })
            .coordinator(a.triage)
            .addHandoff(a.billing, [a.billing]);
        },
        [/\bbilling\b/],
      ],
      [
        "a generated tool name that collides with the coordinator's own tool",
        () => {
          const clash = tool({
            name: 'handoff_to_billing',
            parameters: z.object({}),
            execute: () => 'mine',
          });
          const triage = scripted('triage', [], { tools: [clash] }).agent;
          const a = agents();
          return new HandoffBuilder({ participants: [triage, a.billing] }).coordinator(triage);
        },
        [/\btriage\b/, /handoff_to_billing/],
      ],
      [
        "a generated tool name that collides with a specialist's own tool",
        () => {
          const clash = tool({
            name: 'handoff_to_tech',
            parameters: z.object({}),
            execute: () => 'mine',
          });
          const billing = scripted('billing', [], { tools: [clash] }).agent;
          const a = agents();
          return new HandoffBuilder({ participants: [a.triage, billing, a.tech] })
            .coordinator(a.triage)
            .addHandoff(billing, [a.tech]);
        },
        [/\bbilling\b/, /handoff_to_tech/],
      ],
    ];

    it.each(cases)('throws ConfigError for %s', (_name, make, patterns) => {
      const builder = make();
      const error = buildError(builder);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).name).toEqual('ConfigError');
      for (const pattern of patterns) expect((error as ConfigError).message).toMatch(pattern);
    });
  });

  describe('toMermaid() and machine', () => {
    const { workflow } = desk({ triage: [] });

    it('draws every participant and every handoff edge, and no edge that was not allowed', () => {
      const text = workflow.toMermaid();
      const edges = mermaidEdges(text);

      expect(text.trimStart()).toMatch(/^(flowchart|graph|stateDiagram(-v2)?)\b/);
      for (const name of ['triage', 'billing', 'tech']) {
        expect(text).toMatch(new RegExp(`\\b${name}\\b`));
      }
      expect(edges).toEqual(
        expect.arrayContaining(['triage -> billing', 'triage -> tech', 'billing -> tech']),
      );
      for (const forbidden of ['tech -> billing', 'tech -> triage', 'billing -> triage']) {
        expect(edges).not.toContain(forbidden);
      }
    });

    it('compiles to an XState machine with a state per participant, awaitingInput and stopped', () => {
      const keys: string[] = [];
      const walk = (node: { key: string; states: Record<string, unknown> }) => {
        keys.push(node.key);
        for (const child of Object.values(node.states)) walk(child as typeof node);
      };
      walk(workflow.machine.root);

      expect(workflow.machine).toBeInstanceOf(StateMachine);
      expect(keys).toEqual(
        expect.arrayContaining(['triage', 'billing', 'tech', 'awaitingInput', 'stopped']),
      );
    });
  });
});

describe('HandoffWorkflow', () => {
  describe('a hop', () => {
    it('records the call, its result and the HandoffMessage, then the target answers and the user is asked', async () => {
      const { workflow, billing } = desk({
        triage: [handoffStep('billing', 'call_h1')],
        billing: [scriptedText('Which invoice?')],
      });

      const result = await workflow.run('My invoice is wrong');

      const requestId = result.pendingRequest?.id;
      expect(typeof requestId).toEqual('string');
      expect(result.messages.map(essence)).toEqual([
        { type: 'TextMessage', source: 'user', content: 'My invoice is wrong' },
        {
          type: 'ToolCallRequestEvent',
          source: 'triage',
          content: [{ id: 'call_h1', name: 'handoff_to_billing', arguments: '{}' }],
        },
        {
          type: 'ToolCallExecutionEvent',
          source: 'triage',
          content: [
            {
              callId: 'call_h1',
              name: 'handoff_to_billing',
              content: moved('billing'),
              isError: false,
            },
          ],
        },
        { type: 'HandoffMessage', source: 'triage', target: 'billing', content: moved('billing') },
        { type: 'TextMessage', source: 'billing', content: 'Which invoice?' },
        {
          type: 'UserInputRequestedEvent',
          source: 'billing',
          content: 'Which invoice?',
          requestId,
        },
      ]);
      expect(billing.client.calls).toHaveLength(1);
    });

    it('follows the first of several handoff calls and answers every call', async () => {
      const { workflow, tech } = desk({
        triage: [
          {
            content: null,
            toolCalls: [
              { id: 'call_b', name: 'handoff_to_billing', arguments: '{}' },
              { id: 'call_t', name: 'handoff_to_tech', arguments: '{}' },
            ],
          },
        ],
        billing: [scriptedText('Which invoice?')],
      });

      const result = await workflow.run('Help');

      const execution = result.messages.find((m) => m.type === 'ToolCallExecutionEvent');
      expect(execution?.type === 'ToolCallExecutionEvent' && execution.content).toEqual([
        { callId: 'call_b', name: 'handoff_to_billing', content: moved('billing'), isError: false },
        {
          callId: 'call_t',
          name: 'handoff_to_tech',
          content: expect.stringMatching(/ignored/i),
          isError: true,
        },
      ]);
      expect(result.pendingRequest?.agent).toEqual('billing');
      expect(tech.client.calls).toHaveLength(0);
    });
  });

  describe('what the next model sees', () => {
    const parallel: ScriptedStep = {
      content: null,
      toolCalls: [
        { id: 'call_t1', name: 'lookup_invoice', arguments: '{"invoiceId":"42"}' },
        { id: 'call_h1', name: 'handoff_to_billing', arguments: '{}' },
      ],
    };
    const run = async (filter?: 'handoff' | 'all' | 'none') => {
      const triage = scripted('triage', [parallel], { tools: [lookupInvoice] });
      const billing = scripted('billing', [scriptedText('Which invoice?')]);
      let builder = new HandoffBuilder({ participants: [triage.agent, billing.agent] }).coordinator(
        triage.agent,
      );
      if (filter !== undefined) builder = builder.withToolCallFilter(filter);
      await builder.build().run('Invoice 42 is wrong');
      return billing.client.calls[0];
    };

    it('removes handoff calls and results but keeps other tool calls by default', async () => {
      const seen = await run();

      expect(view(seen)[0]).toEqual('user: Invoice 42 is wrong');
      expect(calledLines(seen)).toEqual([
        '[triage] called lookup_invoice({"invoiceId":"42"}) -> Invoice 42: 40 EUR, unpaid',
      ]);
      expect(toolLines(seen)).toEqual([]);
      expect(unpaired(seen)).toEqual({ dangling: [], orphans: [] });
    });

    const lookedUp =
      '[triage] called lookup_invoice({"invoiceId":"42"}) -> Invoice 42: 40 EUR, unpaid';
    it.each([
      ['handoff', [lookedUp]],
      ['all', []],
      [
        'none',
        [
          lookedUp,
          '[triage] called handoff_to_billing({}) -> ' +
            'Transferred to billing, adopting the role of billing immediately.',
        ],
      ],
    ] as const)('applies withToolCallFilter(%j)', async (filter, expected) => {
      const seen = await run(filter);

      expect(calledLines(seen)).toEqual(expected);
      expect(unpaired(seen)).toEqual({ dangling: [], orphans: [] });
    });

    const router: ChatAgent = {
      name: 'router',
      description: 'Routes requests.',
      respond: async () => ({
        innerMessages: [
          toolCallRequestEvent({
            source: 'router',
            content: [
              { id: 'call_ok', name: 'lookup_invoice', arguments: '{"invoiceId":"1"}' },
              { id: 'call_lost', name: 'lookup_invoice', arguments: '{"invoiceId":"2"}' },
            ],
          }),
          toolCallExecutionEvent({
            source: 'router',
            content: [
              { callId: 'call_ok', name: 'lookup_invoice', content: 'paid', isError: false },
              { callId: 'call_stray', name: 'lookup_invoice', content: 'stray', isError: false },
            ],
          }),
        ],
        chatMessage: handoffMessage({ source: 'router', target: 'billing', content: 'Over.' }),
      }),
    };

    it('removes a tool call without its result and a result without its call', async () => {
      for (const filter of ['handoff', 'all', 'none'] as const) {
        const billing = scripted('billing', [scriptedText('Which invoice?')]);
        const workflow = new HandoffBuilder({ participants: [router, billing.agent] })
          .coordinator(router)
          .withToolCallFilter(filter)
          .build();

        await workflow.run('Invoices 1 and 2');

        const seen = billing.client.calls[0];
        expect(unpaired(seen)).toEqual({ dangling: [], orphans: [] });
        expect(calledLines(seen).filter((line) => /stray|"2"/.test(line))).toEqual([]);
      }
    });

    it('keeps the answered tool calls of the agent that handed off under the default filter', async () => {
      const billing = scripted('billing', [scriptedText('Which invoice?')]);
      const workflow = new HandoffBuilder({ participants: [router, billing.agent] })
        .coordinator(router)
        .build();

      await workflow.run('Invoices 1 and 2');

      expect(calledLines(billing.client.calls[0])).toEqual([
        '[router] called lookup_invoice({"invoiceId":"1"}) -> paid',
      ]);
    });
  });

  describe('metadata', () => {
    it('survives hops, the tool-call filter, a pause, a reply and saveState/loadState', async () => {
      const router: ChatAgent = {
        name: 'router',
        description: 'Routes requests.',
        respond: async () => ({
          innerMessages: [
            toolCallRequestEvent({
              source: 'router',
              content: [{ id: 'call_r', name: 'handoff_to_billing', arguments: '{}' }],
            }),
          ].map((m) => ({ ...m, metadata: { trace: 'r-1' } })),
          chatMessage: handoffMessage({
            source: 'router',
            target: 'billing',
            content: 'Over.',
            metadata: { trace: 'r-2', hops: [1] },
          }),
        }),
      };
      const make = () => {
        const billing = scripted('billing', [scriptedText('Which invoice?'), scriptedText('Ok.')]);
        const workflow = new HandoffBuilder({ participants: [router, billing.agent] })
          .coordinator(router)
          .withUserReplyRouting('last_agent')
          .build();
        return workflow;
      };
      const task = textMessage({
        source: 'user',
        content: 'Refund me',
        metadata: { ticket: 'T-1', nested: { tags: ['vip'] } },
      });
      const reply = textMessage({ source: 'user', content: 'INV-9', metadata: { channel: 'sms' } });
      const workflow = make();

      const first = await workflow.run(task);
      const session = workflow.session(first.sessionId);
      const thread = await session.messages();

      expect(first.messages[0]).toEqual(task);
      expect(thread[0]).toEqual(task);
      expect(thread.map((m) => m.metadata)).toEqual([
        { ticket: 'T-1', nested: { tags: ['vip'] } },
        { trace: 'r-1' },
        { trace: 'r-2', hops: [1] },
        {},
        {},
      ]);

      const restored = make();
      await restored.loadState(await workflow.saveState());
      const second = await restored.run(reply);
      const after = await restored.session(second.sessionId).messages();

      expect(after.slice(0, thread.length)).toEqual(thread);
      expect(after[thread.length]).toEqual(reply);
    });
  });

  describe('saveState() and loadState()', () => {
    it('round-trips a paused session as JSON into a fresh workflow, which delivers the reply without re-running', async () => {
      const one = desk({
        triage: [handoffStep('billing')],
        billing: [scriptedText('Which invoice?')],
      });
      const paused = await one.workflow.run('My invoice is wrong');
      const state = await one.workflow.saveState();
      const thread = await one.workflow.session(paused.sessionId).messages();

      expect(JSON.parse(JSON.stringify(state))).toEqual(state);

      const two = desk({ triage: [scriptedText('Refund issued.')] });
      await two.workflow.loadState(JSON.parse(JSON.stringify(state)));

      expect(await two.workflow.saveState()).toEqual(state);
      const resumed = await two.workflow.run('INV-42');

      expect(resumed.messages.map(essence)).toEqual([
        { type: 'TextMessage', source: 'user', content: 'INV-42' },
        { type: 'TextMessage', source: 'triage', content: 'Refund issued.' },
        {
          type: 'UserInputRequestedEvent',
          source: 'triage',
          content: 'Refund issued.',
          requestId: resumed.pendingRequest?.id,
        },
      ]);
      expect((await two.workflow.session(resumed.sessionId).messages()).slice(0, 6)).toEqual(
        thread,
      );
      expect(two.billing.client.calls).toHaveLength(0);
      expect(two.triage.client.calls).toHaveLength(1);
    });
  });

  describe('pausing for the user', () => {
    it('ends the run awaiting input with a pendingRequest that the event and info() match', async () => {
      const { workflow } = desk({
        triage: [handoffStep('billing')],
        billing: [scriptedText('Which invoice?')],
      });

      const result = await workflow.run('My invoice is wrong');
      const info = await workflow.session(result.sessionId).info();
      const last = result.messages.at(-1);

      expect(result.status).toEqual('awaiting_input');
      expect(result.stopReason).toBeNull();
      expect(result.pendingRequest).toEqual({
        id: expect.any(String),
        agent: 'billing',
        prompt: 'Which invoice?',
        kind: 'input',
      });
      expect(last?.type).toEqual('UserInputRequestedEvent');
      expect(last?.type === 'UserInputRequestedEvent' && [last.requestId, last.content]).toEqual([
        result.pendingRequest?.id,
        'Which invoice?',
      ]);
      expect(info).toEqual({
        status: 'awaiting_input',
        pendingRequest: result.pendingRequest,
        step: expect.any(Number),
      });
    });

    it('gives the reply to the coordinator by default and re-runs nothing', async () => {
      const { workflow, triage, billing } = desk({
        triage: [handoffStep('billing'), scriptedText('Refund issued.')],
        billing: [scriptedText('Which invoice?')],
      });
      await workflow.run('My invoice is wrong');

      const result = await workflow.run('INV-42');

      expect(result.messages.map(label)).toEqual([
        'TextMessage:user',
        'TextMessage:triage',
        'UserInputRequestedEvent:triage',
      ]);
      expect(result.pendingRequest?.agent).toEqual('triage');
      expect(view(triage.client.calls[1]).at(-1)).toEqual('user: INV-42');
      expect(billing.client.calls).toHaveLength(1);
    });

    it("gives the reply to the agent that asked with withUserReplyRouting('last_agent')", async () => {
      const { workflow, triage, billing } = desk(
        {
          triage: [handoffStep('billing')],
          billing: [scriptedText('Which invoice?'), scriptedText('INV-42 is refunded.')],
        },
        (b) => b.withUserReplyRouting('last_agent'),
      );
      await workflow.run('My invoice is wrong');

      const result = await workflow.run('INV-42');

      expect(result.messages.map(essence).slice(0, 2)).toEqual([
        { type: 'TextMessage', source: 'user', content: 'INV-42' },
        { type: 'TextMessage', source: 'billing', content: 'INV-42 is refunded.' },
      ]);
      expect(result.pendingRequest?.agent).toEqual('billing');
      expect(view(billing.client.calls[1]).at(-1)).toEqual('user: INV-42');
      expect(triage.client.calls).toHaveLength(1);
    });
  });

  describe('withTerminationCondition()', () => {
    it('gives the condition the task, each response and each reply as deltas, across pauses', async () => {
      const condition = new RecordingCondition('DONE');
      const { workflow } = desk(
        {
          triage: [handoffStep('billing'), scriptedText('Refund issued. DONE')],
          billing: [scriptedText('Which invoice?')],
        },
        (b) => b.withTerminationCondition(condition),
      );

      const paused = await workflow.run('My invoice is wrong');
      const stopped = await workflow.run('INV-42');

      expect(paused.status).toEqual('awaiting_input');
      expect(condition.deltas).toEqual([
        ['TextMessage:user'],
        ['ToolCallRequestEvent:triage', 'ToolCallExecutionEvent:triage', 'HandoffMessage:triage'],
        ['TextMessage:billing'],
        ['TextMessage:user'],
        ['TextMessage:triage'],
      ]);
      expect([stopped.status, stopped.stopReason, stopped.pendingRequest]).toEqual([
        'terminated',
        'Saw DONE',
        undefined,
      ]);
      expect((await workflow.session(stopped.sessionId).info()).status).toEqual('terminated');
    });

    it('keeps the count of a condition across a pause and resets it once it fires', async () => {
      const { workflow } = desk(
        {
          triage: [handoffStep('billing'), scriptedText('Refunded.'), handoffStep('billing')],
          billing: [scriptedText('Which invoice?'), scriptedText('Which one now?')],
        },
        (b) => b.withTerminationCondition(new MaxMessageTermination(5)),
      );

      const paused = await workflow.run('My invoice is wrong');
      const stopped = await workflow.run('INV-42');
      const again = await workflow.run('Another invoice is wrong');

      expect(paused.status).toEqual('awaiting_input');
      expect([stopped.status, stopped.stopReason]).toEqual([
        'terminated',
        'Maximum number of messages 5 reached, current message count: 5',
      ]);
      expect([again.status, again.pendingRequest?.prompt]).toEqual([
        'awaiting_input',
        'Which one now?',
      ]);
    });

    it('keeps a separate condition state per session', async () => {
      const triage = scripted('triage', (request) => {
        const last = request.messages.at(-1);
        return scriptedText(`Echo: ${last?.content ?? ''}`);
      });
      const billing = scripted('billing', []);
      const workflow = new HandoffBuilder({ participants: [triage.agent, billing.agent] })
        .coordinator(triage.agent)
        .withTerminationCondition(new MaxMessageTermination(4))
        .build();
      const a = workflow.session('a');
      const b = workflow.session('b');

      await a.run('apple');
      const bFirst = await b.run('banana');
      const aSecond = await a.run('more apples');

      expect(bFirst.status).toEqual('awaiting_input');
      expect([aSecond.status, aSecond.stopReason]).toEqual([
        'terminated',
        'Maximum number of messages 4 reached, current message count: 4',
      ]);
    });

    it('stops when a predicate over the whole thread returns true', async () => {
      const seen: string[] = [];
      const { workflow } = desk(
        {
          triage: [handoffStep('billing'), scriptedText('Refund issued. DONE')],
          billing: [scriptedText('Which invoice?')],
        },
        (b) =>
          b.withTerminationCondition((conversation) => {
            const last = conversation.at(-1);
            seen.push(`${conversation.length} ${last ? label(last) : ''}`);
            return conversation.some(
              (m) => m.source === 'triage' && messageToText(m) === 'Refund issued. DONE',
            );
          }),
      );

      const paused = await workflow.run('My invoice is wrong');
      const stopped = await workflow.run('INV-42');

      expect(paused.status).toEqual('awaiting_input');
      expect(seen).toEqual([
        '1 TextMessage:user',
        '4 HandoffMessage:triage',
        '5 TextMessage:billing',
        '7 TextMessage:user',
        '8 TextMessage:triage',
      ]);
      expect([stopped.status, stopped.stopReason, stopped.pendingRequest]).toEqual([
        'terminated',
        'Functional termination condition met',
        undefined,
      ]);
    });
  });

  describe('withMaxTurns()', () => {
    it('stops after n agent turns and the next run continues with the next speaker', async () => {
      const { workflow, tech } = desk(
        {
          triage: [handoffStep('billing')],
          billing: [handoffStep('tech')],
          tech: [scriptedText('Reinstall the app.')],
        },
        (b) => b.withMaxTurns(2),
      );

      const stopped = await workflow.run('The app double-charges');

      expect([stopped.status, stopped.stopReason, stopped.pendingRequest]).toEqual([
        'terminated',
        'Maximum number of turns 2 reached.',
        undefined,
      ]);
      expect(stopped.messages.filter((m) => m.type === 'HandoffMessage').map(essence)).toEqual([
        { type: 'HandoffMessage', source: 'triage', target: 'billing', content: moved('billing') },
        { type: 'HandoffMessage', source: 'billing', target: 'tech', content: moved('tech') },
      ]);
      expect(tech.client.calls).toHaveLength(0);

      const continued = await workflow.run();

      expect(continued.messages.map(label)).toEqual([
        'TextMessage:tech',
        'UserInputRequestedEvent:tech',
      ]);
      expect(continued.status).toEqual('awaiting_input');
    });

    it('defaults to 50 turns', async () => {
      const ping = scripted('ping', () => handoffStep('pong', 'call_pong'));
      const pong = scripted('pong', () => handoffStep('ping', 'call_ping'));
      const workflow = new HandoffBuilder({ participants: [ping.agent, pong.agent] })
        .coordinator(ping.agent)
        .addHandoff(pong.agent, [ping.agent])
        .build();

      const result = await workflow.run('Go');

      expect(result.stopReason).toEqual('Maximum number of turns 50 reached.');
      expect(ping.client.calls.length + pong.client.calls.length).toEqual(50);
    });

    it("reports the condition's reason when it fires on the same turn as the limit", async () => {
      const { workflow } = desk(
        { triage: [handoffStep('billing')], billing: [handoffStep('tech')] },
        (b) => b.withMaxTurns(2).withTerminationCondition(new HandoffTermination('tech')),
      );

      const result = await workflow.run('The app double-charges');

      expect([result.status, result.stopReason]).toEqual([
        'terminated',
        'Handoff to tech from billing detected.',
      ]);
    });
  });

  describe('withContextWindow()', () => {
    it('sends at most the last n non-system messages', async () => {
      const triage = scripted(
        'triage',
        [scriptedText('a1'), scriptedText('a2'), scriptedText('a3')],
        { instructions: 'You are triage.' },
      );
      const billing = scripted('billing', []);
      const workflow = new HandoffBuilder({ participants: [triage.agent, billing.agent] })
        .coordinator(triage.agent)
        .withContextWindow(3)
        .build();

      await workflow.run('t1');
      await workflow.run('r1');
      await workflow.run('r2');

      expect(triage.client.calls.map(view)).toEqual([
        ['system: You are triage.', 'user: t1'],
        ['system: You are triage.', 'user: t1', 'assistant: a1', 'user: r1'],
        ['system: You are triage.', 'user: r1', 'assistant: a2', 'user: r2'],
      ]);
    });

    it('windows every model request of a turn, widened only back to the tool call', async () => {
      const triage = scripted(
        'triage',
        [
          scriptedToolCall('lookup_invoice', { invoiceId: '42' }, 'call_t1'),
          scriptedText('Invoice 42 is unpaid.'),
        ],
        { instructions: 'You are triage.', tools: [lookupInvoice], maxToolIterations: 2 },
      );
      const billing = scripted('billing', []);
      const workflow = new HandoffBuilder({ participants: [triage.agent, billing.agent] })
        .coordinator(triage.agent)
        .withContextWindow(1)
        .build();

      const result = await workflow.run('Is invoice 42 paid?');

      expect(result.pendingRequest?.prompt).toEqual('Invoice 42 is unpaid.');
      expect(view(triage.client.calls[1])).toEqual([
        'system: You are triage.',
        'user: [earlier messages are not shown]',
        'assistant calls lookup_invoice(call_t1)',
        'tool result for call_t1',
      ]);
    });

    it('widens a window that starts inside an earlier turn back to the tool call', async () => {
      const triage = scripted(
        'triage',
        [
          scriptedToolCall('lookup_invoice', { invoiceId: '42' }, 'call_t1'),
          scriptedText('Invoice 42 is unpaid.'),
          scriptedText('Paying it now.'),
        ],
        { instructions: 'You are triage.', tools: [lookupInvoice], maxToolIterations: 2 },
      );
      const billing = scripted('billing', []);
      const workflow = new HandoffBuilder({ participants: [triage.agent, billing.agent] })
        .coordinator(triage.agent)
        .withContextWindow(3)
        .build();

      await workflow.run('Is invoice 42 paid?');
      await workflow.run('Please pay it');

      expect(view(triage.client.calls[2])).toEqual([
        'system: You are triage.',
        'user: [earlier messages are not shown]',
        'assistant calls lookup_invoice(call_t1)',
        'tool result for call_t1',
        'assistant: Invoice 42 is unpaid.',
        'user: Please pay it',
      ]);
    });
  });

  describe('withAutonomousMode()', () => {
    it('keeps an agent going with the default prompt up to its turn limit, then asks the user', async () => {
      const triage = scripted('triage', [
        scriptedText('step 1'),
        scriptedText('step 2'),
        scriptedText('step 3'),
      ]);
      const billing = scripted('billing', []);
      const workflow = new HandoffBuilder({ participants: [triage.agent, billing.agent] })
        .coordinator(triage.agent)
        .withAutonomousMode({ turnLimits: { triage: 3 } })
        .build();

      const result = await workflow.run('Fix my account');

      expect(
        result.messages.filter((m) => m.type === 'TextMessage' && m.source === 'triage'),
      ).toHaveLength(3);
      expect(triage.client.calls.map((c) => view(c).at(-1))).toEqual([
        'user: Fix my account',
        `user: ${AUTONOMOUS_PROMPT}`,
        `user: ${AUTONOMOUS_PROMPT}`,
      ]);
      expect([result.status, result.pendingRequest?.agent, result.pendingRequest?.prompt]).toEqual([
        'awaiting_input',
        'triage',
        'step 3',
      ]);
    });

    it('allows 10 answers in a row by default', async () => {
      const triage = scripted('triage', (_request, i) => scriptedText(`answer ${i + 1}`));
      const billing = scripted('billing', []);
      const workflow = new HandoffBuilder({ participants: [triage.agent, billing.agent] })
        .coordinator(triage.agent)
        .withAutonomousMode()
        .build();

      const result = await workflow.run('Go on');

      expect(triage.client.calls).toHaveLength(10);
      expect(result.pendingRequest?.prompt).toEqual('answer 10');
    });

    it('uses a custom prompt, applies to the listed agents only and stops at a handoff', async () => {
      const { workflow, triage, billing } = desk(
        {
          triage: [scriptedText('Looking into it.'), handoffStep('billing')],
          billing: [scriptedText('Which invoice?')],
        },
        (b) => b.withAutonomousMode({ agents: ['triage'], prompt: 'Keep going.' }),
      );

      const result = await workflow.run('My invoice is wrong');

      expect(view(triage.client.calls[1]).at(-1)).toEqual('user: Keep going.');
      expect(billing.client.calls).toHaveLength(1);
      expect([result.status, result.pendingRequest?.agent]).toEqual(['awaiting_input', 'billing']);
    });
  });

  describe('sessions', () => {
    it('serves several sessions of one workflow concurrently without mixing them', async () => {
      const started: string[] = [];
      let bothStarted!: () => void;
      const gate = new Promise<void>((resolve) => {
        bothStarted = resolve;
      });
      const triage = scripted('triage', async (request) => {
        const said = String(request.messages.at(-1)?.content);
        started.push(said);
        if (started.length === 2) bothStarted();
        await gate;
        return scriptedText(`Echo: ${said}`);
      });
      const billing = scripted('billing', []);
      const workflow = new HandoffBuilder({ participants: [triage.agent, billing.agent] })
        .coordinator(triage.agent)
        .build();

      const [a, b] = await Promise.all([
        workflow.session('a').run('apple'),
        workflow.session('b').run('banana'),
      ]);

      expect([a.sessionId, a.pendingRequest?.prompt]).toEqual(['a', 'Echo: apple']);
      expect([b.sessionId, b.pendingRequest?.prompt]).toEqual(['b', 'Echo: banana']);
      expect((await workflow.session('a').messages()).map((m) => m.content)).toEqual([
        'apple',
        'Echo: apple',
        'Echo: apple',
      ]);
      expect(triage.client.calls.map(view).sort()).toEqual([['user: apple'], ['user: banana']]);
      expect(workflow.session().id).not.toEqual(workflow.session().id);
    });

    it('rejects a second run of a running session with SessionBusyError, from any handle', async () => {
      let entered!: () => void;
      const running = new Promise<void>((resolve) => {
        entered = resolve;
      });
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const triage = scripted('triage', async () => {
        entered();
        await released;
        return scriptedText('Done.');
      });
      const billing = scripted('billing', []);
      const workflow = new HandoffBuilder({ participants: [triage.agent, billing.agent] })
        .coordinator(triage.agent)
        .build();
      const session = workflow.session('ticket-7');

      const first = session.run('first');
      await running;
      const sameHandle = session.run('second').catch((e: unknown) => e);
      const otherHandle = workflow
        .session('ticket-7')
        .run('third')
        .catch((e: unknown) => e);
      const errors = await Promise.all([sameHandle, otherHandle]);
      release();
      const result = await first;

      for (const error of errors) {
        expect(error).toBeInstanceOf(SessionBusyError);
        expect((error as Error).name).toEqual('SessionBusyError');
        expect((error as Error).message).toMatch(/ticket-7/);
      }
      expect(result.status).toEqual('awaiting_input');
      expect((await session.messages()).map((m) => m.content)).toEqual(['first', 'Done.', 'Done.']);
    });

    it('keeps one default session id and clears it with reset()', async () => {
      const { workflow, triage } = desk({
        triage: [scriptedText('Hello, how can I help?'), scriptedText('Fresh start.')],
      });

      const first = await workflow.run('Hi');
      await workflow.reset();
      const second = await workflow.run('Hi again');

      expect(second.sessionId).toEqual(first.sessionId);
      expect((await workflow.session(second.sessionId).messages()).map(label)).toEqual([
        'TextMessage:user',
        'TextMessage:triage',
        'UserInputRequestedEvent:triage',
      ]);
      expect(view(triage.client.calls[1])).toEqual(['user: Hi again']);
    });
  });

  describe('cancelling', () => {
    it('ends cancelled with the messages so far and redoes the interrupted turn on the next run', async () => {
      const hang = blocking();
      let call = 0;
      const { workflow, triage, billing } = desk({
        triage: [handoffStep('billing')],
        billing: (_request, i) => {
          call = i;
          return i === 0 ? hang.steps() : scriptedText('Which invoice?');
        },
      });
      const controller = new AbortController();

      const pending = workflow.run('My invoice is wrong', { signal: controller.signal });
      await hang.entered;
      controller.abort();
      const cancelled = await pending;

      expect([cancelled.status, cancelled.stopReason, cancelled.pendingRequest]).toEqual([
        'cancelled',
        null,
        undefined,
      ]);
      expect(cancelled.messages.map(label)).toEqual([
        'TextMessage:user',
        'ToolCallRequestEvent:triage',
        'ToolCallExecutionEvent:triage',
        'HandoffMessage:triage',
      ]);
      const session = workflow.session(cancelled.sessionId);
      expect((await session.messages()).map(label)).toEqual(cancelled.messages.map(label));
      expect((await session.info()).status).toEqual('cancelled');

      const resumed = await workflow.run();

      expect(call).toEqual(1);
      expect(billing.client.calls[1]?.messages).toEqual(billing.client.calls[0]?.messages);
      expect(triage.client.calls).toHaveLength(1);
      expect(resumed.messages.map(label)).toEqual([
        'TextMessage:billing',
        'UserInputRequestedEvent:billing',
      ]);
      expect(resumed.status).toEqual('awaiting_input');
    });

    it('keeps the condition state and the turn counter across a cancel', async () => {
      const setup = (configure: (b: HandoffBuilder) => HandoffBuilder) => {
        const hang = blocking();
        const parts = desk(
          {
            triage: [handoffStep('billing')],
            billing: (_request, i) => (i === 0 ? hang.steps() : handoffStep('tech')),
            tech: [scriptedText('Reinstall the app.')],
          },
          configure,
        );
        return { ...parts, hang };
      };
      const cancelThenResume = async (parts: ReturnType<typeof setup>) => {
        const controller = new AbortController();
        const pending = parts.workflow.run('The app double-charges', {
          signal: controller.signal,
        });
        await parts.hang.entered;
        controller.abort();
        expect((await pending).status).toEqual('cancelled');
        return parts.workflow.run();
      };

      const counted = setup((b) => b.withTerminationCondition(new MaxMessageTermination(3)));
      const byCondition = await cancelThenResume(counted);
      const turns = setup((b) => b.withMaxTurns(2));
      const byTurns = await cancelThenResume(turns);

      expect([byCondition.status, byCondition.stopReason]).toEqual([
        'terminated',
        'Maximum number of messages 3 reached, current message count: 3',
      ]);
      expect([byTurns.status, byTurns.stopReason]).toEqual([
        'terminated',
        'Maximum number of turns 2 reached.',
      ]);
      expect(turns.tech.client.calls).toHaveLength(0);
    });
  });

  describe('failures', () => {
    it("rejects run() with the model client's error message and keeps the thread", async () => {
      const { workflow } = desk({
        triage: [handoffStep('billing')],
        billing: [new Error('upstream exploded: 503')],
      });

      const session = workflow.session('failing');

      await expect(session.run('My invoice is wrong')).rejects.toThrow(/upstream exploded: 503/);
      expect((await session.messages()).map(label)).toEqual([
        'TextMessage:user',
        'ToolCallRequestEvent:triage',
        'ToolCallExecutionEvent:triage',
        'HandoffMessage:triage',
      ]);
    });
  });

  describe('results', () => {
    it('streams every message and then the TaskResult last', async () => {
      const { workflow } = desk({
        triage: [handoffStep('billing')],
        billing: [scriptedText('Which invoice?')],
      });

      const items = await collect(workflow.runStream('My invoice is wrong'));
      const last = items.at(-1) as TaskResult;

      expect(last.type).toEqual('TaskResult');
      expect(items.slice(0, -1)).toEqual(last.messages);
      expect(last.messages.map(label)).toEqual([
        'TextMessage:user',
        'ToolCallRequestEvent:triage',
        'ToolCallExecutionEvent:triage',
        'HandoffMessage:triage',
        'TextMessage:billing',
        'UserInputRequestedEvent:billing',
      ]);
    });

    it('leaves the task out of the result with outputTaskMessages: false but keeps it in the thread', async () => {
      const { workflow } = desk({ triage: [scriptedText('How can I help?')] });

      const result = await workflow.run('Hi', { outputTaskMessages: false });

      expect(result.messages.map(label)).toEqual([
        'TextMessage:triage',
        'UserInputRequestedEvent:triage',
      ]);
      expect((await workflow.session(result.sessionId).messages()).map(label)).toEqual([
        'TextMessage:user',
        'TextMessage:triage',
        'UserInputRequestedEvent:triage',
      ]);
    });

    it("totals each run's usage", async () => {
      const { workflow } = desk({
        triage: [
          handoffStep('billing', 'call_h1', { promptTokens: 11, completionTokens: 3 }),
          scriptedText('Refund issued.', { promptTokens: 7, completionTokens: 2 }),
        ],
        billing: [scriptedText('Which invoice?', { promptTokens: 20, completionTokens: 5 })],
      });

      const first = await workflow.run('My invoice is wrong');
      const second = await workflow.run('INV-42');

      expect(first.usage).toEqual({ promptTokens: 31, completionTokens: 8 });
      expect(second.usage).toEqual({ promptTokens: 7, completionTokens: 2 });
    });
  });
});
