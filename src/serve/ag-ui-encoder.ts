import type { StateValue } from '../agents/conversation-state.js';
import type { EventType, Interrupt, RunFinishedOutcome } from '@ag-ui/core';

import type { TaskResult } from '../engine/runnable.js';
import type { FunctionCall } from '../messages/message.js';
import type { RunEvent } from '../engine/feed/run-event.js';
import type { SseFrame } from './sse-response.js';
import { handoffData } from './handoff-data.js';

/** The answer schema of a question interrupt: `{text}`. */
export const TEXT_ANSWER_SCHEMA = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
} as const;

/** An AG-UI event as sent: its type (each `EventType` is its own name) and its fields. */
interface Event {
  readonly type: keyof typeof EventType;
  readonly [field: string]: unknown;
}
const ev = (type: Event['type'], fields: Record<string, unknown> = {}): Event => ({
  type,
  ...fields,
});

/** The interrupts of a paused run: one per call awaiting approval, or one question. */
export function interruptsOf(result: TaskResult): Interrupt[] {
  const pending = result.pendingRequest;
  if (result.status !== 'awaiting_input' || pending === undefined) return [];
  if (pending.kind === 'approval') {
    return (pending.calls ?? []).map((call) => ({
      id: call.id,
      reason: 'tool_call',
      toolCallId: call.id,
      message: `${pending.agent} asks to run ${call.name}(${call.arguments})`,
      responseSchema: {
        type: 'object',
        properties: { approved: { type: 'boolean' }, reason: { type: 'string' } },
        required: ['approved'],
      },
    }));
  }
  if (pending.kind === 'in_doubt') {
    // A call in doubt: approve (run it again), reject, or give the result it had.
    return (pending.calls ?? []).map((call) => ({
      id: call.id,
      reason: 'tool_call',
      toolCallId: call.id,
      message:
        `${call.name}(${call.arguments}) of ${pending.agent} may or may not have completed: ` +
        'run it again, skip it, or give its result',
      responseSchema: {
        oneOf: [
          {
            type: 'object',
            properties: { approved: { type: 'boolean' }, reason: { type: 'string' } },
            required: ['approved'],
          },
          { type: 'object', properties: { result: { type: 'string' } }, required: ['result'] },
        ],
      },
    }));
  }
  return [
    {
      id: pending.id,
      reason: 'input_required',
      message: pending.prompt,
      responseSchema: { ...TEXT_ANSWER_SCHEMA },
    },
  ];
}

/**
 * AG-UI 1.0 events of a run: `RUN_STARTED`, `STEP_STARTED`/`STEP_FINISHED` around each agent
 * turn (`stepName` = the agent), `TEXT_MESSAGE_*` (streamed chunk by chunk when the model
 * streams), `TOOL_CALL_*` and `TOOL_CALL_RESULT`, a `CUSTOM` `baton.handoff` per handoff, a
 * `CUSTOM` `baton.waiting` `{requestId, kind, waitingFor}` when the pause waits for a role, then
 * `RUN_FINISHED` (with the interrupt outcome for a pause) or `RUN_ERROR`.
 */
export class AgUiEncoder {
  readonly #threadId: string;
  readonly #runId: string;
  /** The agent turn open now: its step and agent. */
  #turn: { step: number; agent: string } | undefined;
  #text: string | undefined;
  readonly #calls = new Set<string>();
  /** The messages shown as drafts (streamed before their step): their step's record is not. */
  readonly #drafts = new Set<string>();
  /** The conversation state when the run starts, sent as `STATE_SNAPSHOT`. */
  snapshot: StateValue | undefined;

  constructor(threadId: string, runId: string) {
    this.#threadId = threadId;
    this.#runId = runId;
  }

  start(): Event[] {
    const started = ev('RUN_STARTED', { threadId: this.#threadId, runId: this.#runId });
    if (this.snapshot === undefined) return [started];
    return [started, ev('STATE_SNAPSHOT', { snapshot: this.snapshot })];
  }

  /** A run that could not start: `RUN_STARTED` then `RUN_ERROR`. */
  refused(message: string, code: string): Event[] {
    this.snapshot = undefined;
    return [...this.start(), ev('RUN_ERROR', { message, code })];
  }

  event(event: RunEvent): Event[] {
    if (event.kind === 'error') {
      return [...this.#endTurn(), ev('RUN_ERROR', { message: event.message, code: 'run_failed' })];
    }
    if (event.kind === 'result') {
      const interrupts = interruptsOf(event.result);
      const outcome: RunFinishedOutcome | undefined =
        interrupts.length > 0
          ? { type: 'interrupt', interrupts }
          : event.result.status === 'cancelled'
            ? { type: 'cancelled' }
            : undefined;
      const { status, stopReason, pendingRequest } = event.result;
      const waitingFor = status === 'awaiting_input' ? pendingRequest?.waitingFor : undefined;
      // The customer's page learns that someone else (a supervisor) must answer the request.
      const waiting =
        waitingFor === undefined || pendingRequest === undefined
          ? []
          : [
              ev('CUSTOM', {
                name: 'baton.waiting',
                value: { requestId: pendingRequest.id, kind: pendingRequest.kind, waitingFor },
              }),
            ];
      return [
        ...this.#endTurn(),
        ...waiting,
        ev('RUN_FINISHED', {
          threadId: this.#threadId,
          runId: this.#runId,
          result: { status, stopReason },
          ...(outcome === undefined ? {} : { outcome }),
        }),
      ];
    }
    if (event.kind === 'state') return [ev('STATE_DELTA', { delta: [...event.patch] })];
    const m = event.message;
    if (m.source === 'user' || this.#drafts.delete(m.id)) return [];
    if (event.draft === true && m.type !== 'ModelClientStreamingChunkEvent') this.#drafts.add(m.id);
    const out: Event[] = [];
    if (this.#turn?.step !== event.id.step || this.#turn.agent !== m.source) {
      out.push(...this.#endTurn(), ev('STEP_STARTED', { stepName: m.source }));
      this.#turn = { step: event.id.step, agent: m.source };
    }
    switch (m.type) {
      case 'ModelClientStreamingChunkEvent':
        if (m.content === '') break;
        if (this.#text === undefined) {
          this.#text = m.id;
          out.push(
            ev('TEXT_MESSAGE_START', { messageId: m.id, role: 'assistant', name: m.source }),
          );
        }
        out.push(ev('TEXT_MESSAGE_CONTENT', { messageId: this.#text, delta: m.content }));
        break;
      case 'TextMessage':
        if (this.#text === undefined && m.content !== '') {
          out.push(
            ev('TEXT_MESSAGE_START', { messageId: m.id, role: 'assistant', name: m.source }),
            ev('TEXT_MESSAGE_CONTENT', { messageId: m.id, delta: m.content }),
            ev('TEXT_MESSAGE_END', { messageId: m.id }),
          );
        } else out.push(...this.#endText());
        break;
      case 'ToolCallRequestEvent':
      case 'ToolApprovalRequestEvent':
        out.push(...this.#endText(), ...m.content.flatMap((call) => this.#call(call, m.id)));
        break;
      case 'ToolCallExecutionEvent':
        for (const result of m.content) {
          out.push(
            ev('TOOL_CALL_RESULT', {
              messageId: `${m.id}:${result.callId}`,
              toolCallId: result.callId,
              content: result.content,
              role: 'tool',
            }),
          );
        }
        break;
      case 'HandoffMessage':
        out.push(
          ...this.#endText(),
          ev('CUSTOM', { name: 'baton.handoff', value: handoffData(m) }),
        );
        break;
      default:
        break;
    }
    return out;
  }

  #call(call: FunctionCall, parentMessageId: string): Event[] {
    if (this.#calls.has(call.id)) return [];
    this.#calls.add(call.id);
    return [
      ev('TOOL_CALL_START', { toolCallId: call.id, toolCallName: call.name, parentMessageId }),
      ...(call.arguments === ''
        ? []
        : [ev('TOOL_CALL_ARGS', { toolCallId: call.id, delta: call.arguments })]),
      ev('TOOL_CALL_END', { toolCallId: call.id }),
    ];
  }

  #endText(): Event[] {
    if (this.#text === undefined) return [];
    const messageId = this.#text;
    this.#text = undefined;
    return [ev('TEXT_MESSAGE_END', { messageId })];
  }

  #endTurn(): Event[] {
    const turn = this.#turn;
    if (turn === undefined) return [];
    this.#turn = undefined;
    return [...this.#endText(), ev('STEP_FINISHED', { stepName: turn.agent })];
  }
}

/** The SSE frames of AG-UI events (each event's JSON as `data`). */
export async function* agUiFrames(
  events: AsyncIterable<RunEvent>,
  encoder: AgUiEncoder,
): AsyncGenerator<SseFrame> {
  for (const event of encoder.start()) yield { data: JSON.stringify(event) };
  for await (const event of events) {
    for (const out of encoder.event(event)) yield { data: JSON.stringify(out) };
  }
}
