import type { LLMMessage } from '../messages/llm-message.js';
import type { ChatMessage, FunctionCall, ToolInDoubtEvent } from '../messages/message.js';
import type { ChatClient, ModelResult } from '../models/chat-client.js';
import { captureMessageContent, inputMessages, outputMessages } from './gen-ai-messages.js';
import { GenAIMetrics } from './gen-ai-metrics.js';
import { batonVersion, loadOpenTelemetry } from './open-telemetry.js';
import { errorTypeOf, type SpanScope, Tracing } from './tracing.js';

// The port the engine, the agents and the orchestrations call: one function per GenAI span kind
//. Nothing outside src/observability imports OpenTelemetry.

const api = loadOpenTelemetry();
const tracing = new Tracing(api, batonVersion());
const metrics = api === undefined ? undefined : new GenAIMetrics(api, tracing.version);

/** What `traceRun` reads of a run's result. */
interface RunOutcome {
  readonly status: string;
  readonly stopReason: string | null;
  readonly messages?: readonly { readonly type: string; readonly source: string }[];
}

/**
 * The stop reason as a span may hold it. A tripped guardrail's reason ends with its info, which
 * often quotes the text it checked: without content capture only `Guardrail "<name>" tripped`
 * is kept. Every other stop reason is the library's text or configured text (the mentioned text of
 * `TextMentionTermination`, agent and function names, limits).
 */
function spanStopReason(result: RunOutcome): string | undefined {
  const reason = result.stopReason ?? undefined;
  if (reason === undefined || captureMessageContent()) return reason;
  const tripped = result.messages?.findLast((m) => m.type === 'GuardrailTrippedEvent');
  const prefix = tripped === undefined ? undefined : `Guardrail "${tripped.source}" tripped`;
  return prefix !== undefined && reason.startsWith(prefix) ? prefix : reason;
}

/**
 * One `run()` of a workflow or team: the span `invoke_workflow <workflow>`, with the run's status
 * and stop reason, and a `baton.termination` event when the run stopped.
 */
export function traceRun<R extends RunOutcome>(
  workflow: string,
  sessionId: string,
  principalId: string | undefined,
  run: () => Promise<R>,
): Promise<R> {
  if (!tracing.active) return run();
  return tracing.span(
    {
      name: `invoke_workflow ${workflow}`,
      operation: 'invoke_workflow',
      kind: 'internal',
      conversationId: sessionId,
      attributes: {
        'gen_ai.operation.name': 'invoke_workflow',
        'gen_ai.conversation.id': sessionId,
        'baton.workflow.name': workflow,
        'baton.principal.id': principalId,
      },
    },
    async (span) => {
      const result = await run();
      const stopReason = spanStopReason(result);
      span.set({ 'baton.run.status': result.status, 'baton.stop_reason': stopReason });
      if (result.status === 'terminated') {
        span.event('baton.termination', { 'baton.stop_reason': stopReason });
      }
      return result;
    },
  );
}

function isInDoubt(value: unknown): value is ToolInDoubtEvent {
  return (
    typeof value === 'object' &&
    value !== null &&
    'type' in value &&
    value.type === 'ToolInDoubtEvent'
  );
}

/** A handoff's brief as JSON text (what a span attribute can hold). */
function briefText(answer: { readonly brief?: unknown }): string {
  return JSON.stringify(answer.brief) ?? '';
}

/**
 * One agent turn: the span `invoke_agent <agent>`, with a `baton.handoff` event when the agent
 * answers with a handoff, and a `baton.tool_calls_in_doubt` event when its turn pauses on calls in
 * doubt.
 */
export function traceAgentTurn<R extends { chatMessage: ChatMessage } | object>(
  agent: string,
  sessionId: string,
  respond: () => Promise<R>,
): Promise<R> {
  if (!tracing.active) return respond();
  return tracing.span(
    {
      name: `invoke_agent ${agent}`,
      operation: 'invoke_agent',
      kind: 'internal',
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': agent,
        'gen_ai.conversation.id': sessionId,
      },
    },
    async (span) => {
      const response = await respond();
      // A paused turn (tool calls awaiting approval) has no chat message yet.
      const answer = 'chatMessage' in response ? response.chatMessage : undefined;
      if (answer?.type === 'HandoffMessage') {
        const brief =
          answer.brief === undefined ? {} : { 'baton.handoff.brief': briefText(answer) };
        span.event('baton.handoff', {
          'baton.handoff.source': answer.source,
          'baton.handoff.target': answer.target,
          ...brief,
        });
        // On the agent span too, where a trace view lists attributes and hides events.
        if (answer.brief !== undefined) span.set(brief);
      }
      // Calls in doubt: the turn pauses for a person to decide them.
      const paused = 'approvalRequest' in response ? response.approvalRequest : undefined;
      if (isInDoubt(paused)) {
        span.event('baton.tool_calls_in_doubt', {
          'baton.tool_calls.ids': paused.content.map((c) => c.id).join(','),
          'baton.tool_calls.names': paused.content.map((c) => c.name).join(','),
        });
      }
      return response;
    },
  );
}

/**
 * One model call: the span `chat <model>` (`chat` when the client names no model) with the
 * provider, models, token usage and finish reason; with
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` also the messages. Records the two
 * GenAI client metrics.
 */
export function traceChat(
  client: ChatClient,
  messages: readonly LLMMessage[],
  call: () => Promise<ModelResult>,
): Promise<ModelResult> {
  const model = nonEmpty(client.model);
  const provider = nonEmpty(client.provider);
  if (metrics === undefined || !metrics.enabled()) {
    return tracing.active ? chatSpan(model, provider, messages, call) : call();
  }
  const started = performance.now();
  const base = {
    'gen_ai.operation.name': 'chat',
    ...(provider === undefined ? {} : { 'gen_ai.provider.name': provider }),
    ...(model === undefined ? {} : { 'gen_ai.request.model': model }),
  };
  return chatSpan(model, provider, messages, call).then(
    (result) => {
      const answered = nonEmpty(result.model) ?? model;
      metrics.recordChat(
        answered === undefined ? base : { ...base, 'gen_ai.response.model': answered },
        (performance.now() - started) / 1000,
        { input: result.usage.promptTokens, output: result.usage.completionTokens },
      );
      return result;
    },
    (error: unknown) => {
      metrics.recordChat(
        { ...base, 'error.type': errorTypeOf(error) },
        (performance.now() - started) / 1000,
        undefined,
      );
      throw error;
    },
  );
}

function chatSpan(
  model: string | undefined,
  provider: string | undefined,
  messages: readonly LLMMessage[],
  call: () => Promise<ModelResult>,
): Promise<ModelResult> {
  return tracing.span(
    {
      name: model === undefined ? 'chat' : `chat ${model}`,
      operation: 'chat',
      kind: 'client',
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': provider,
        'gen_ai.request.model': model,
      },
    },
    async (span) => {
      const content = span.recording && captureMessageContent();
      if (content) span.set({ 'gen_ai.input.messages': inputMessages(messages) });
      const result = await call();
      const finishReason =
        nonEmpty(result.finishReason) ?? (result.toolCalls.length > 0 ? 'tool_calls' : 'stop');
      span.set({
        'gen_ai.response.model': nonEmpty(result.model) ?? model,
        'gen_ai.usage.input_tokens': result.usage.promptTokens,
        'gen_ai.usage.output_tokens': result.usage.completionTokens,
        'gen_ai.response.finish_reasons': [finishReason],
      });
      if (content) span.set({ 'gen_ai.output.messages': outputMessages(result, finishReason) });
      return result;
    },
  );
}

/** How a tool call ended; `errorType` (for `error.type`) when it failed. */
export interface ToolOutcome<R> {
  readonly result: R;
  readonly errorType?: string;
  /** Why it failed: the span's status message, only with content capture on. */
  readonly errorMessage?: string;
  /** What the tool threw, for the span's exception event. */
  readonly exception?: { readonly error: unknown };
}

/** A tool call as `traceToolExecution` sees it. */
export interface TracedCall {
  readonly call: FunctionCall;
  /**
   * Whether the call names a tool the agent has. The name of any other call is whatever the model
   * wrote: content, so the span is `execute_tool` without `gen_ai.tool.name` unless content
   * capture is on.
   */
  readonly known: boolean;
}

/** One tool execution: the span `execute_tool <tool>`, failed when the tool's result is an error. */
export function traceToolExecution<R>(
  { call, known }: TracedCall,
  execute: () => Promise<ToolOutcome<R>>,
): Promise<R> {
  if (!tracing.active) return execute().then((outcome) => outcome.result);
  const name = known || captureMessageContent() ? call.name : undefined;
  return tracing.span(
    {
      name: name === undefined ? 'execute_tool' : `execute_tool ${name}`,
      operation: 'execute_tool',
      kind: 'internal',
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': name,
        'gen_ai.tool.call.id': call.id,
        'gen_ai.tool.type': 'function',
      },
    },
    async (span: SpanScope) => {
      const outcome = await execute();
      if (outcome.errorType !== undefined) span.fail(outcome.errorType, outcome.errorMessage);
      if (outcome.exception !== undefined) span.exception(outcome.exception.error);
      return outcome.result;
    },
  );
}

function nonEmpty(value: string | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
