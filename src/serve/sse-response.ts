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

const IDLE = Symbol('idle');

/** Resolves in the event loop's check phase: once what is ready now has had its turn. */
const checkPhase = () => new Promise<typeof IDLE>((resolve) => setImmediate(resolve, IDLE));

/**
 * An SSE answer streaming `frames`. The frames ready at once go out together, as one chunk (a run
 * commits its steps in bursts: one socket write for a burst, not one a frame); the chunk is sent
 * when the next frame is not there by the event loop's check phase. A client that disconnects
 * only ends this stream (`leave` aborts what feeds it); the run it follows goes on.
 */
export function sseResponse(
  frames: AsyncIterable<SseFrame>,
  leave: AbortController,
  headers: Record<string, string> = {},
): Response {
  const iterator = frames[Symbol.asyncIterator]();
  /** The frame asked for when a chunk went out without it. */
  let ahead: Promise<IteratorResult<SseFrame>> | undefined;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        let next = await (ahead ?? iterator.next());
        ahead = undefined;
        let text = '';
        let idle: Promise<typeof IDLE> | undefined;
        while (next.done !== true) {
          text += frameText(next.value);
          const coming = iterator.next();
          idle ??= checkPhase();
          const first = await Promise.race([coming, idle]);
          if (first === IDLE) {
            // Its failure is reported by the pull that awaits it (none when the client left).
            coming.catch(() => {});
            ahead = coming;
            break;
          }
          next = first;
        }
        if (text !== '') controller.enqueue(encoder.encode(text));
        if (next.done === true) controller.close();
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
