/** One Server-Sent Event: `data` is sent as it is (JSON text, or `[DONE]`). */
export interface SseFrame {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
}

const encoder = new TextEncoder();

function frameText(frame: SseFrame): string {
  let text = '';
  if (frame.id !== undefined) text += `id: ${frame.id}\n`;
  if (frame.event !== undefined) text += `event: ${frame.event}\n`;
  return `${text}data: ${frame.data}\n\n`;
}

/**
 * An SSE answer streaming `frames`. A client that disconnects only ends this stream (`leave`
 * aborts what feeds it); the run it follows goes on.
 */
export function sseResponse(
  frames: AsyncIterable<SseFrame>,
  leave: AbortController,
  headers: Record<string, string> = {},
): Response {
  const iterator = frames[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done === true) controller.close();
        else controller.enqueue(encoder.encode(frameText(next.value)));
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      leave.abort();
      await iterator.return?.();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      ...headers,
    },
  });
}
