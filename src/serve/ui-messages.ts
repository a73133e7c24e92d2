import type { UIMessageChunk } from 'ai';

import type { StepView } from '../engine/log/step-messages.js';
import type { AgentMessage } from '../messages/message.js';
import { isRecord } from '../unknown-value.js';
import { UiMessageEncoder } from './ui-message-encoder.js';

/** An AI SDK `UIMessage`, as `GET /chat/:id/messages` answers it (JSON). */
export interface ThreadUiMessage {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  metadata?: Record<string, unknown>;
  readonly parts: Record<string, unknown>[];
}

/**
 * The session's thread as AI SDK `UIMessage`s, as the UI message stream showed it: each user text
 * is a user message; what the agents did after it (until the next user text; decisions continue
 * it) is one assistant message, id `<session>:<the step of that input>` — the id its stream had —
 * with its text, tool, handoff and state parts and the agent in its metadata.
 */
export function threadUiMessages(sessionId: string, views: readonly StepView[]): ThreadUiMessage[] {
  const out: ThreadUiMessage[] = [];
  let assistant: { message: ThreadUiMessage; encoder: UiMessageEncoder; open: Open } | undefined;
  const close = () => {
    if (assistant !== undefined && assistant.message.parts.length > 0) out.push(assistant.message);
    assistant = undefined;
  };
  for (const view of views) {
    for (const message of view.messages) {
      if (isUserText(message)) {
        close();
        out.push({
          id: message.id,
          role: 'user',
          parts: [{ type: 'text', text: textOf(message) }],
        });
        assistant = begin(`${sessionId}:${view.step}`);
        continue;
      }
      assistant ??= begin(`${sessionId}:${view.step}`);
      const chunks = assistant.encoder.event({
        id: { step: view.step, n: 1 },
        kind: 'message',
        message,
      });
      for (const chunk of chunks) apply(assistant.message, assistant.open, chunk);
    }
    const patch = view.statePatch;
    if (assistant !== undefined && patch !== undefined && patch.length > 0) {
      assistant.message.parts.push({ type: 'data-state', data: { patch } });
    }
    if (assistant !== undefined && view.status !== 'idle') {
      // The run ended here: its final metadata, as the stream's result sent it.
      const pending = view.status === 'awaiting_input' ? view.pendingRequest : null;
      const pendingRequest =
        pending === null ? null : { ...pending, kind: pending.kind ?? 'input' };
      assistant.message.metadata = {
        ...assistant.message.metadata,
        status: view.status,
        pendingRequest,
      };
    }
  }
  close();
  return out;
}

/** The text part and tool parts being built, by their stream ids. */
interface Open {
  text: Record<string, unknown> | undefined;
  readonly tools: Map<string, Record<string, unknown>>;
}

function begin(id: string) {
  const message: ThreadUiMessage = { id, role: 'assistant', parts: [] };
  return {
    message,
    encoder: new UiMessageEncoder(id),
    open: { text: undefined, tools: new Map() },
  };
}

/** Applies one UI message stream chunk to `message`, as the AI SDK's reader does. */
function apply(message: ThreadUiMessage, open: Open, chunk: UIMessageChunk): void {
  switch (chunk.type) {
    case 'text-start':
      open.text = { type: 'text', text: '', state: 'done' };
      message.parts.push(open.text);
      return;
    case 'text-delta':
      if (open.text !== undefined) open.text.text = `${String(open.text.text)}${chunk.delta}`;
      return;
    case 'text-end':
      open.text = undefined;
      return;
    case 'reasoning-delta':
      message.parts.push({ type: 'reasoning', text: chunk.delta, state: 'done' });
      return;
    case 'tool-input-available': {
      const part = {
        type: `tool-${chunk.toolName}`,
        toolCallId: chunk.toolCallId,
        state: 'input-available',
        input: chunk.input,
      };
      open.tools.set(chunk.toolCallId, part);
      message.parts.push(part);
      return;
    }
    case 'tool-approval-request':
      Object.assign(open.tools.get(chunk.toolCallId) ?? {}, {
        state: 'approval-requested',
        approval: { id: chunk.approvalId },
      });
      return;
    case 'tool-output-available':
      Object.assign(open.tools.get(chunk.toolCallId) ?? {}, {
        state: 'output-available',
        output: chunk.output,
      });
      return;
    case 'tool-output-error':
      Object.assign(open.tools.get(chunk.toolCallId) ?? {}, {
        state: 'output-error',
        errorText: chunk.errorText,
      });
      return;
    case 'tool-output-denied':
      Object.assign(open.tools.get(chunk.toolCallId) ?? {}, { state: 'output-denied' });
      return;
    case 'message-metadata':
      if (isRecord(chunk.messageMetadata)) {
        message.metadata = { ...message.metadata, ...chunk.messageMetadata };
      }
      return;
    default:
      if ('data' in chunk) {
        const { type, id, data } = chunk;
        message.parts.push({ type, ...(id === undefined ? {} : { id }), data });
      }
  }
}

function isUserText(message: AgentMessage): boolean {
  return (
    message.source === 'user' &&
    (message.type === 'TextMessage' || message.type === 'HandoffMessage')
  );
}

function textOf(message: AgentMessage): string {
  return 'content' in message && typeof message.content === 'string' ? message.content : '';
}
