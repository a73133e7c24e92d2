import type { StatePatchOp } from '../../agents/conversation-state.js';
import type { AgentMessage, ModelClientStreamingChunkEvent } from '../../messages/message.js';
import type { TaskResult } from '../runnable.js';
import { type Cursor, formatCursor } from './feed-cursor.js';

/**
 * One event of a session's feed as the engine and its encoders see it: a committed message, a
 * draft of the step being made (`draft: true`: a streaming chunk, or a tool event the run streamed
 * before the step that records it), a state change, the result that ends a run, or the error a
 * run failed with.
 */
export type RunEvent =
  | {
      readonly id: Cursor;
      readonly kind: 'message';
      readonly message: AgentMessage;
      /** Streamed by the run before its step was committed: the step repeats it. */
      readonly draft?: true;
    }
  /** A step changed the conversation state: its JSON Patch, before its messages. */
  | { readonly id: Cursor; readonly kind: 'state'; readonly patch: readonly StatePatchOp[] }
  | { readonly id: Cursor; readonly kind: 'result'; readonly result: TaskResult }
  | {
      readonly id: Cursor;
      readonly kind: 'error';
      readonly message: string;
      /** What the run rejected with (only in the process that ran it). */
      readonly error?: unknown;
    };

/** One event of `session.feed()`. */
export type FeedEvent =
  /** A committed message, from the log. */
  | { readonly type: 'message'; readonly cursor: string; readonly message: AgentMessage }
  /** A draft of the step being made: the committed message that completes the step repeats it. */
  | {
      readonly type: 'chunk';
      readonly cursor: string;
      readonly message: ModelClientStreamingChunkEvent;
    }
  /** The run ended: paused or stopped. */
  | { readonly type: 'result'; readonly cursor: string; readonly result: TaskResult };

/** The public form of `event`, or `undefined` for what `feed()` does not show. */
export function feedEventOf(event: RunEvent): FeedEvent | undefined {
  const cursor = formatCursor(event.id);
  switch (event.kind) {
    case 'message': {
      const { message } = event;
      if (message.type === 'ModelClientStreamingChunkEvent') {
        return { type: 'chunk', cursor, message };
      }
      return event.draft === true ? undefined : { type: 'message', cursor, message };
    }
    case 'result':
      return { type: 'result', cursor, result: event.result };
    default:
      return undefined;
  }
}
