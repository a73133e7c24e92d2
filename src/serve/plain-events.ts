import type { TaskResult } from '../engine/runnable.js';
import type { AgentMessage } from '../messages/message.js';
import { formatCursor } from '../engine/feed/feed-cursor.js';
import type { RunEvent } from '../engine/feed/run-event.js';
import type { SseFrame } from './sse-response.js';

/**
 * The plain SSE form (`/runs`, `/stream`): one event per message (`event` its type, `data` its
 * JSON, chunks included), then `result` with the TaskResult — or `error` when the run failed.
 * Every `id:` is the event's cursor. Each message is encoded once: the result's `messages` reuse
 * the text of those the stream has sent.
 */
export async function* plainFrames(events: AsyncIterable<RunEvent>): AsyncGenerator<SseFrame> {
  const sent = new Map<AgentMessage, string>();
  for await (const event of events) {
    const id = formatCursor(event.id);
    if (event.kind === 'message') {
      // A tool event streamed before its step: the step's record of it follows.
      if (event.draft === true && event.message.type !== 'ModelClientStreamingChunkEvent') continue;
      const data = JSON.stringify(event.message);
      sent.set(event.message, data);
      yield { id, event: event.message.type, data };
    } else if (event.kind === 'state') {
      yield { id, event: 'state', data: JSON.stringify(event.patch) };
    } else if (event.kind === 'result') {
      yield { id, event: 'result', data: resultJson(event.result, sent) };
      sent.clear();
    } else {
      const error = { code: 'run_failed', message: event.message };
      yield { id, event: 'error', data: JSON.stringify({ error }) };
    }
  }
}

const NO_MESSAGES = '"messages":[]';

/**
 * `JSON.stringify(result)`, byte for byte, with the text of each message in `sent` spliced in as
 * it is. `"messages":[]` in the rest is the key itself: a string's quotes are escaped, and only
 * values that are not objects may come before it (else the result is encoded whole).
 */
export function resultJson(result: TaskResult, sent: ReadonlyMap<AgentMessage, string>): string {
  if (sent.size === 0) return JSON.stringify(result);
  for (const [key, value] of Object.entries(result)) {
    if (key === 'messages') break;
    if (typeof value === 'object' && value !== null) return JSON.stringify(result);
  }
  const rest = JSON.stringify({ ...result, messages: [] });
  const at = rest.indexOf(NO_MESSAGES);
  if (at === -1) return JSON.stringify(result);
  const messages = result.messages.map((m) => sent.get(m) ?? JSON.stringify(m)).join(',');
  return `${rest.slice(0, at)}"messages":[${messages}]${rest.slice(at + NO_MESSAGES.length)}`;
}
