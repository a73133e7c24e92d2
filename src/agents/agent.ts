import type { z } from 'zod';

export type { AgentOptions } from './agent-options.js';

import { ConfigError } from '../errors.js';
import type { LLMMessage } from '../messages/llm-message.js';
import type { AgentEvent, FunctionCall, FunctionExecutionResult } from '../messages/message.js';
import {
  thoughtEvent,
  toolApprovalRequestEvent,
  toolCallExecutionEvent,
  toolCallRequestEvent,
} from '../messages/message-factories.js';
import { applyContextWindow } from '../messages/context-window.js';
import { type ModelViewOptions, threadModelMessages } from '../messages/model-view.js';
import { carriedThread, Thread } from '../messages/thread.js';
import { type HandoffInfo, handoffContext } from '../messages/handoff-brief.js';
import type { ChatClient, ModelRequest } from '../models/chat-client.js';
import {
  checkAgentName,
  checkDistinctTargets,
  checkMaxToolIterations,
  checkOnToolError,
  indexTools,
  mergeHandoffs,
  outputJsonSchema,
} from './agent-config.js';
import { agentOptions } from './agent-rewire.js';
import { approvalNeeded } from './approvals.js';
import { pauseOf } from './approvers.js';
import { findOpenBatch } from './open-batch.js';
import { type Batch, pauseEventOf, readyCalls, startBatch } from './tool-batch.js';
import { withUniqueIds } from './call-ids.js';
import {
  type AgentContext,
  type AgentPause,
  type AgentResponse,
  type ChatAgent,
} from './chat-agent.js';
import type { Handoff } from './handoff.js';
import type { AgentOptions } from './agent-options.js';
import { type CallSetup, inCallOrder, runCalls } from './run-calls.js';
import { type TurnOffer, TurnOffers } from './turn-offer.js';
import { answerOf, handoffAnswer, modelRequest, turnOutput } from './model-turn.js';
import { callModel } from './model-call.js';
import { knownTools, retryableCalls, summaryAnswer } from './retry-calls.js';
import type { Tool } from './tool.js';
import { checkInstructions } from './agent-config.js';
import { type Instructions, instructionsText, setSystemMessage } from './agent-instructions.js';
import { runBatch, type StateBatch, TurnState } from './turn-state.js';
import { realTimer, type Timer, type ToolMiddleware } from './tool-execution.js';

const NO_RESULTS: ReadonlyMap<string, FunctionExecutionResult> = new Map();
const NO_HANDOFFS: ReadonlyMap<string, Handoff> = new Map();
const NO_IDS: ReadonlySet<string> = new Set();

/**
 * The LLM-backed `ChatAgent` (AutoGen's AssistantAgent semantics, stateless). Each turn it builds
 * its view of the thread (`toModelMessages`), calls the model, runs the tools it asks for and
 * answers with one chat message:
 *
 * - text → `TextMessage` (with usage); with `outputSchema` → `StructuredMessage`, or a
 *   `TextMessage` with `metadata.structuredOutputError` when the answer does not match;
 * - tool calls → `ToolCallRequestEvent` (with usage) and `ToolCallExecutionEvent`, then another
 *   model call while `maxToolIterations` allows, else a `ToolCallSummaryMessage`;
 * - a handoff call → `HandoffMessage` whose `context` is one `ToolCallSummaryMessage` with the
 *   answer's other tool calls and results (empty when there were none).
 *
 * Bad model output (unknown tool, bad JSON, arguments failing the schema) and failing or slow
 * tools become error results the model sees; `respond()` rejects only when the model call fails,
 * a middleware throws, or the turn is aborted.
 *
 * @example
 * const billing = new Agent({ name: 'billing', client, instructions: 'You handle refunds.',
 *   tools: [lookupInvoice], handoffs: ['triage'] });
 * @throws ConfigError for a bad name, repeated tool names or handoffs, or bad options.
 */
export class Agent implements ChatAgent {
  readonly name: string;
  readonly description: string;
  readonly instructions: string | Instructions | undefined;
  readonly tools: readonly Tool[];
  readonly handoffs: readonly Handoff[];
  readonly maxToolIterations: number;
  readonly outputSchema: z.ZodType | undefined;
  readonly #client: ChatClient;
  readonly #tools: ReadonlyMap<string, Tool>;
  readonly #handoffs: ReadonlyMap<string, Handoff>;
  readonly #middleware: readonly ToolMiddleware[];
  readonly #stream: boolean;
  readonly #timer: Timer;
  readonly #onToolError: AgentOptions['onToolError'];
  /** The agent's own output format and its JSON Schema. */
  readonly #ownOutput: {
    readonly schema: z.ZodType | undefined;
    readonly json: Record<string, unknown> | undefined;
  };
  readonly #offers: TurnOffers;

  constructor(options: AgentOptions) {
    const name = checkAgentName(options?.name);
    if (typeof options.client?.create !== 'function') {
      throw new ConfigError(
        `Agent "${name}" needs a \`client\`: a ChatClient such as OpenAIChatClient or ScriptedChatClient.`,
        { path: 'client' },
      );
    }
    this.name = name;
    this.description =
      options.description ?? 'An agent that provides assistance with ability to use tools.';
    this.instructions = checkInstructions(name, options.instructions);
    this.#client = options.client;
    this.#tools = indexTools(name, options.tools ?? []);
    this.tools = [...this.#tools.values()];
    checkDistinctTargets(name, options.handoffs ?? []);
    this.#handoffs = mergeHandoffs(name, this.#tools, new Map(), options.handoffs ?? []);
    this.handoffs = [...this.#handoffs.values()];
    this.#offers = new TurnOffers(name, this.#tools, this.#handoffs);
    this.maxToolIterations = checkMaxToolIterations(name, options.maxToolIterations ?? 1);
    this.outputSchema = options.outputSchema;
    this.#ownOutput = {
      schema: options.outputSchema,
      json:
        options.outputSchema === undefined
          ? undefined
          : outputJsonSchema(name, options.outputSchema),
    };
    this.#middleware = [...(options.middleware ?? [])];
    this.#stream = options.stream ?? false;
    this.#timer = options.timer ?? realTimer;
    this.#onToolError = checkOnToolError(name, options.onToolError);
    agentOptions.set(this, { ...options });
  }

  /**
   * One turn (see the class description). A turn that pauses for approvals cannot be expressed as
   * an `AgentResponse`: run an agent whose tools need approval in a team or workflow, which calls
   * `takeTurn()`.
   * @throws Error when a tool call of this turn needs approval.
   */
  async respond(ctx: AgentContext): Promise<AgentResponse> {
    const turn = await this.takeTurn(ctx);
    if ('approvalRequest' in turn) {
      const names = turn.approvalRequest.content.map((c) => c.name).join(', ');
      throw new Error(
        `Agent "${this.name}" paused its turn for the approval of ${names}. Approvals need a ` +
          'session: run the agent in a team or workflow (e.g. new RoundRobinGroupChat([agent])).',
      );
    }
    return turn;
  }

  /**
   * One turn, which may pause for approvals: when the model calls tools that need
   * approval, the other calls run first, and the turn ends with a `ToolApprovalRequestEvent` and
   * no answer. Called again once every such call is decided (the decisions are in the thread), it
   * runs the approved calls, gives rejected ones their error result, and goes on as usual.
   */
  async takeTurn(ctx: AgentContext): Promise<AgentResponse | AgentPause> {
    const state = ctx.state ?? new TurnState();
    // A session's context carries its thread; an array given by anyone else is a thread of its own.
    const thread = carriedThread(ctx) ?? Thread.of(ctx.conversation);
    const guardContext = handoffContext(thread, this.name);
    const handoff = guardContext.handoff;
    const allowed = this.#offers.of(ctx);
    let offer = this.#offers.guarded(allowed, ctx.handoffGuards, state.value, guardContext);
    let handoffs = offer.handoffs;
    const output = turnOutput(this.name, this.#ownOutput, ctx.outputSchema);
    const viewOptions: ModelViewOptions = { handoffToolNames: allowed.names };
    const instructions = () =>
      instructionsText(this.instructions, {
        state: state.value,
        sessionId: ctx.sessionId,
        agent: this.name,
        ...guardContext,
      });
    // A string costs no await (each is a tick on every turn).
    const text = typeof this.instructions === 'function' ? await instructions() : this.instructions;
    if (text !== undefined) viewOptions.instructions = text;
    if (ctx.toolCallFilter !== undefined) viewOptions.toolCallFilter = ctx.toolCallFilter;
    if (ctx.contextWindow !== undefined) viewOptions.contextWindow = ctx.contextWindow;
    if (ctx.history !== undefined) viewOptions.history = ctx.history;
    // The window applies to every request of the turn, so it is applied per call below.
    let messages = threadModelMessages(thread, this.name, viewOptions);
    // Ids the thread uses, and (kept when a later call could repeat one) ids this turn has used.
    const threadIds = thread.index().callIds;
    let usedIds: Set<string> | undefined;
    const inner: AgentEvent[] = [];
    const record = (event: AgentEvent) => {
      inner.push(event);
      ctx.emit(event);
    };
    const open = findOpenBatch(thread, this.name, this.#tools, ctx.startedCalls);
    let last: { calls: FunctionCall[]; results: FunctionExecutionResult[] } | undefined;
    let tries = this.maxToolIterations; // 2 at least after a mistyped tool or a failed brief
    let retried: ReadonlySet<string> = NO_IDS;

    for (let i = 0; i < tries; i++) {
      let calls: FunctionCall[];
      let content: string | null = null;
      // Results given before a pause, and fixed results (made only when a turn has any).
      let earlier: ReadonlyMap<string, FunctionExecutionResult> = NO_RESULTS;
      let fixed: Map<string, FunctionExecutionResult> | undefined;
      let approved: ReadonlySet<string> = NO_IDS;
      if (i === 0 && open !== undefined) {
        ({ results: earlier, fixed, approved } = open);
        calls = [...open.calls];
        const event = pauseEventOf(this.name, open);
        if (event !== undefined) {
          // Calls in doubt or undecided: the decided ones run now, the model waits.
          const ready = readyCalls(open, ctx.startedCalls);
          const results = await runBatch(ready, state, (batch) =>
            runCalls(ready, fixed, NO_HANDOFFS, this.#setup(ctx, offer, batch, handoff)),
          );
          ctx.signal.throwIfAborted();
          if (results.length > 0) {
            record(toolCallExecutionEvent({ source: this.name, content: results }));
          }
          // The thread has a waiting event already; a new one (calls in doubt) is recorded.
          if (event !== open.waiting) record(event);
          return pauseOf(event, inner, this.#tools);
        }
      } else {
        if (i > 0) {
          // Each model call sees the state as the turn's tools left it.
          if (typeof this.instructions === 'function')
            setSystemMessage(messages, await instructions());
          offer = this.#offers.guarded(allowed, ctx.handoffGuards, state.value, guardContext);
          handoffs = offer.handoffs;
        }
        const result = await this.#callModel(
          modelRequest(
            i === 0 ? messages : applyContextWindow(messages, ctx.contextWindow, this.name),
            offer.schemas,
            ctx.signal,
            output.json,
          ),
          ctx,
          inner,
        );
        if (result.thought) record(thoughtEvent({ source: this.name, content: result.thought }));
        if (result.toolCalls.length === 0) {
          return { chatMessage: answerOf(this.name, result, output.schema), innerMessages: inner };
        }
        if (result.content) record(thoughtEvent({ source: this.name, content: result.content }));
        content = result.content;
        if (i + 1 < tries) usedIds ??= new Set();
        calls = withUniqueIds(result.toolCalls, threadIds, usedIds, offer.toolNames);
        record(toolCallRequestEvent({ source: this.name, content: calls, usage: result.usage }));
      }
      const toRun = earlier.size === 0 ? calls : calls.filter((c) => !earlier.has(c.id));
      const waiting: FunctionCall[] = [];
      for (const c of toRun) {
        if (handoffs.has(c.name) || fixed?.has(c.id) === true || approved.has(c.id)) continue;
        const needed = await approvalNeeded(c, this.#tools, {
          signal: ctx.signal,
          sessionId: ctx.sessionId,
          agent: this.name,
          state: state.value,
        });
        if (needed === true) waiting.push(c);
        else if (needed !== false) (fixed ??= new Map()).set(c.id, needed);
      }
      const batch: Batch = { fixed, approved, handoffs, tools: this.#tools };
      if (waiting.length > 0) {
        // The other calls run now; handoff calls wait for the decisions with the rest.
        const waits = new Set(waiting.map((c) => c.id));
        const now = toRun.filter((c) => !waits.has(c.id) && !handoffs.has(c.name));
        await startBatch(ctx, now, batch, inner);
        const results = await runBatch(now, state, (batch) =>
          runCalls(now, fixed, NO_HANDOFFS, this.#setup(ctx, offer, batch, handoff)),
        );
        ctx.signal.throwIfAborted();
        if (results.length > 0) {
          record(toolCallExecutionEvent({ source: this.name, content: results }));
        }
        const approvalRequest = toolApprovalRequestEvent({ source: this.name, content: waiting });
        record(approvalRequest);
        return pauseOf(approvalRequest, inner, this.#tools);
      }
      await startBatch(ctx, toRun, batch, inner);
      let chosen: { handoff: Handoff; brief: unknown } | undefined;
      const stateBatch = state.batch();
      const running = runCalls(
        toRun,
        fixed,
        handoffs,
        this.#setup(ctx, offer, stateBatch, handoff),
        (h, brief) => (chosen ??= { handoff: h, brief }),
      );
      // Handoffs alone are answered at once: nothing to await.
      const fresh = Array.isArray(running) ? running : await running;
      stateBatch.end(toRun);
      ctx.signal.throwIfAborted();
      const execution = toolCallExecutionEvent({ source: this.name, content: fresh });
      record(execution);
      // In the calls' order; without results from before a pause, the fresh ones are.
      const results = inCallOrder(calls, earlier, fresh);
      if (chosen !== undefined) {
        return {
          chatMessage: handoffAnswer(this.name, chosen, handoffs, calls, results),
          innerMessages: inner,
        };
      }
      retried = retryableCalls(calls, fresh, offer, knownTools(allowed, ctx.handoffGuards));
      // A second try where the agent may hand off: its answer would be the customer's question.
      if (retried.size > 0 && i + 1 === tries && tries < 2 && allowed.handoffs.size > 0) {
        tries = 2;
        usedIds ??= new Set(calls.map((c) => c.id));
      }
      if (i === 0 && open !== undefined) {
        // A continued turn: the view of the thread with these results pairs every call of the
        // paused answer with its result, before anything the user said meanwhile.
        messages = threadModelMessages(thread.append([execution]), this.name, viewOptions);
        if (typeof this.instructions === 'function')
          setSystemMessage(messages, await instructions());
      } else {
        messages.push(
          { role: 'assistant', content, toolCalls: calls },
          ...results.map((r): LLMMessage => ({
            role: 'tool',
            toolCallId: r.callId,
            content: r.content,
          })),
        );
      }
      last = { calls, results };
    }
    return { chatMessage: summaryAnswer(this.name, last, retried), innerMessages: inner };
  }

  #setup(ctx: AgentContext, offer: TurnOffer, state: StateBatch, handoff?: HandoffInfo): CallSetup {
    return {
      handoff,
      state,
      agent: this.name,
      tools: this.#tools,
      middleware: this.#middleware,
      timer: this.#timer,
      signal: ctx.signal,
      sessionId: ctx.sessionId,
      offered: offer.offered,
      onToolError: this.#onToolError,
    };
  }

  #callModel(request: ModelRequest, ctx: AgentContext, inner: readonly AgentEvent[]) {
    return callModel(this.#client, this.name, this.#stream, request, ctx, inner);
  }
}
