import { formatCursor } from './event-cursor.js';
import type { FeedEvent } from './live-run.js';
import type { SseFrame } from './sse-response.js';

/**
 * The plain SSE form (`/runs`, `/stream`): one event per message (`event` its type, `data` its
 * JSON, chunks included), then `result` with the TaskResult — or `error` when the run failed.
 * Every `id:` is the event's cursor.
 */
export async function* plainFrames(events: AsyncIterable<FeedEvent>): AsyncGenerator<SseFrame> {
  for await (const event of events) {
    const id = formatCursor(event.id);
    if (event.kind === 'message') {
      yield { id, event: event.message.type, data: JSON.stringify(event.message) };
    } else if (event.kind === 'state') {
      yield { id, event: 'state', data: JSON.stringify(event.patch) };
    } else if (event.kind === 'result') {
      yield { id, event: 'result', data: JSON.stringify(event.result) };
    } else {
      const error = { code: 'run_failed', message: event.message };
      yield { id, event: 'error', data: JSON.stringify({ error }) };
    }
  }
}
