import { isDeepStrictEqual } from 'node:util';

import type { ChatMessage } from '../../messages/message.js';
import type { ModelRequest } from '../../models/chat-client.js';
import type { RecordedTurn } from './recording.js';

/** A brief that differs from the recording: the recorded one and the replayed one. */
export interface BriefChange {
  readonly expected: unknown;
  readonly actual: unknown;
}

/**
 * The recorded handoff of `turn` refused for its brief on replay (the brief's schema changed), as
 * the next model request shows it: the model is asked again, which it never was when recorded.
 */
export function refusedBrief(turn: RecordedTurn, request: ModelRequest): BriefChange | undefined {
  if (turn.handoff === undefined) return undefined;
  const ids = new Set(turn.answers.at(-1)?.toolCalls.map((c) => c.id));
  for (const m of request.messages) {
    if (
      m.role === 'tool' &&
      ids.has(m.toolCallId) &&
      m.content.includes('was not made: the brief')
    ) {
      return { expected: turn.brief, actual: m.content };
    }
  }
  return undefined;
}

/**
 * The brief of the replayed handoff `message` when it differs from `turn`'s. A recording made
 * before briefs has none to compare with.
 */
export function changedBrief(turn: RecordedTurn, message: ChatMessage): BriefChange | undefined {
  if (turn.brief === undefined || message.type !== 'HandoffMessage') return undefined;
  if (isDeepStrictEqual(turn.brief, message.brief)) return undefined;
  return { expected: turn.brief, actual: message.brief };
}
