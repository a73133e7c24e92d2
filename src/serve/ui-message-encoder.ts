import type { UIMessageChunk } from 'ai';

import type { AgentMessage, FunctionCall } from '../messages/message.js';
import { messageToText } from '../messages/message-text.js';
import type { RunEvent } from '../engine/feed/run-event.js';
import type { SseFrame } from './sse-response.js';
import { handoffData } from './handoff-data.js';

/** The header that marks an AI SDK UI message stream. */
export const UI_MESSAGE_STREAM_HEADERS = { 'x-vercel-ai-ui-message-stream': 'v1' } as const;

/** The arguments of a call as JSON, or the text as it is when it is not JSON. */
function inputOf(call: FunctionCall): unknown {
  try {
    const input: unknown = JSON.parse(call.arguments);
    return input;
  } catch {
    return call.arguments;
  }
}

/**
 * The AI SDK's UI message stream of a run: one assistant message (`messageId`; the same id
 * continues a message after an approval), a `message-metadata` chunk `{agent}` whenever the
 * speaking agent changes, text parts (streamed chunk by chunk when the model streams), tool parts
 * with input and output, `data-handoff` parts `{from, to, brief}`, `tool-approval-request` chunks, and the
 * final metadata `{status, pendingRequest}`. User messages are not echoed: the client has them.
 */
export class UiMessageEncoder {
  readonly messageId: string;
  #agent: string | undefined;
  #text: string | undefined;
  #parts = 0;
  readonly #calls = new Set<string>();
  /** The messages shown as drafts (streamed before their step): their step's record is not. */
  readonly #drafts = new Set<string>();

  constructor(messageId: string, knownCalls: readonly string[] = []) {
    this.messageId = messageId;
    for (const id of knownCalls) this.#calls.add(id);
  }

  start(): UIMessageChunk[] {
    return [{ type: 'start', messageId: this.messageId }];
  }

  event(event: RunEvent): UIMessageChunk[] {
    if (event.kind === 'result') {
      const { status, pendingRequest } = event.result;
      return [
        ...this.#closeText(),
        {
          type: 'message-metadata',
          messageMetadata: { status, pendingRequest: pendingRequest ?? null },
        },
        { type: 'finish', finishReason: 'stop' },
      ];
    }
    if (event.kind === 'state') {
      // The AI SDK's data part: the conversation state's change as its JSON Patch.
      return [{ type: 'data-state', data: { patch: event.patch } }];
    }
    if (event.kind === 'error') {
      return [
        ...this.#closeText(),
        { type: 'error', errorText: event.message },
        { type: 'finish' },
      ];
    }
    const m = event.message;
    if (m.source === 'user' || this.#drafts.delete(m.id)) return [];
    if (event.draft === true && m.type !== 'ModelClientStreamingChunkEvent') this.#drafts.add(m.id);
    const out: UIMessageChunk[] = [];
    if (m.source !== this.#agent && m.type !== 'GuardrailTrippedEvent') {
      this.#agent = m.source;
      out.push(...this.#closeText(), {
        type: 'message-metadata',
        messageMetadata: { agent: m.source },
      });
    }
    out.push(...this.#message(m));
    return out;
  }

  #message(m: AgentMessage): UIMessageChunk[] {
    switch (m.type) {
      case 'ModelClientStreamingChunkEvent':
        return m.content === '' ? [] : this.#textDelta(m.content);
      case 'TextMessage':
      case 'StopMessage':
      case 'StructuredMessage':
      case 'ToolCallSummaryMessage':
        return this.#wholeText(messageToText(m));
      case 'ThoughtEvent': {
        const id = `reasoning-${++this.#parts}`;
        return [
          ...this.#closeText(),
          { type: 'reasoning-start', id },
          { type: 'reasoning-delta', id, delta: m.content },
          { type: 'reasoning-end', id },
        ];
      }
      case 'ToolCallRequestEvent':
        return [...this.#closeText(), ...m.content.flatMap((call) => this.#input(call))];
      // Calls in doubt are asked as approvals: approve runs it again, deny skips it.
      case 'ToolApprovalRequestEvent':
      case 'ToolInDoubtEvent':
        return [
          ...this.#closeText(),
          ...m.content.flatMap((call): UIMessageChunk[] => [
            ...this.#input(call),
            { type: 'tool-approval-request', approvalId: call.id, toolCallId: call.id },
          ]),
        ];
      case 'ToolCallExecutionEvent':
        return m.content.flatMap((result): UIMessageChunk[] => [
          ...this.#input({ id: result.callId, name: result.name, arguments: '{}' }),
          result.isError &&
          (result.content.startsWith(`Tool call "${result.name}" was rejected by the user`) ||
            result.content.startsWith(
              `Tool call "${result.name}" may or may not have completed; it was not retried`,
            ))
            ? { type: 'tool-output-denied', toolCallId: result.callId }
            : result.isError
              ? { type: 'tool-output-error', toolCallId: result.callId, errorText: result.content }
              : {
                  type: 'tool-output-available',
                  toolCallId: result.callId,
                  output: result.content,
                },
        ]);
      case 'HandoffMessage':
        return [...this.#closeText(), { type: 'data-handoff', id: m.id, data: handoffData(m) }];
      case 'GuardrailTrippedEvent':
        return this.#wholeText(
          `Guardrail "${m.source}" tripped${m.content === '' ? '' : `: ${m.content}`}`,
        );
      default:
        return [];
    }
  }

  /** A tool part's input, once per call (a call already shown is not shown again). */
  #input(call: FunctionCall): UIMessageChunk[] {
    if (this.#calls.has(call.id)) return [];
    this.#calls.add(call.id);
    return [
      {
        type: 'tool-input-available',
        toolCallId: call.id,
        toolName: call.name,
        input: inputOf(call),
      },
    ];
  }

  /** A finished text: closes the streamed part, or sends it whole when nothing was streamed. */
  #wholeText(text: string): UIMessageChunk[] {
    if (this.#text !== undefined) return this.#closeText();
    if (text === '') return [];
    const id = `text-${++this.#parts}`;
    return [
      { type: 'text-start', id },
      { type: 'text-delta', id, delta: text },
      { type: 'text-end', id },
    ];
  }

  /** A streamed piece of text, in the open text part (opened first when none is). */
  #textDelta(delta: string): UIMessageChunk[] {
    if (this.#text !== undefined) return [{ type: 'text-delta', id: this.#text, delta }];
    const id = `text-${++this.#parts}`;
    this.#text = id;
    return [
      { type: 'text-start', id },
      { type: 'text-delta', id, delta },
    ];
  }

  #closeText(): UIMessageChunk[] {
    if (this.#text === undefined) return [];
    const id = this.#text;
    this.#text = undefined;
    return [{ type: 'text-end', id }];
  }
}

/** The SSE frames of a UI message stream: each chunk as JSON, then `[DONE]`. */
export async function* uiMessageFrames(
  events: AsyncIterable<RunEvent>,
  encoder: UiMessageEncoder,
): AsyncGenerator<SseFrame> {
  for (const chunk of encoder.start()) yield { data: JSON.stringify(chunk) };
  for await (const event of events) {
    for (const chunk of encoder.event(event)) yield { data: JSON.stringify(chunk) };
  }
  yield { data: '[DONE]' };
}
