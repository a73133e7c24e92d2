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

/** The frames ready at once, as one text: `ahead` is the next frame asked for, not yet there. */
interface Burst {
  readonly text: string;
  readonly done: boolean;
  readonly ahead?: Promise<IteratorResult<SseFrame>>;
}

/**
 * Reads the frames of `iterator` that are ready at once, from `ahead` (a frame already asked for)
 * on: the burst ends when the next frame is not there by the event loop's check phase, or with
 * the last frame. It waits for its first frame unless `now` (then it may be empty).
 */
async function burst(
  iterator: AsyncIterator<SseFrame>,
  ahead?: Promise<IteratorResult<SseFrame>>,
  now = false,
): Promise<Burst> {
  let coming = ahead ?? iterator.next();
  let text = '';
  let idle: Promise<typeof IDLE> | undefined;
  if (!now) {
    const first = await coming;
    if (first.done === true) return { text, done: true };
    text = frameText(first.value);
    coming = iterator.next();
  }
  for (;;) {
    idle ??= checkPhase();
    const next = await Promise.race([coming, idle]);
    if (next === IDLE) {
      // Its failure is reported by the burst that awaits it (none when the client left).
      coming.catch(() => {});
      return { text, done: false, ahead: coming };
    }
    if (next.done === true) return { text, done: true };
    text += frameText(next.value);
    coming = iterator.next();
  }
}

/**
 * An SSE answer of `frames`. The frames ready at once go out together, as one chunk (a run
 * commits its steps in bursts: one socket write for a burst, not one a frame); a chunk is sent
 * when the next frame is not there by the event loop's check phase. When the frames ready at the
 * start are all there are (a run that ended before its answer was made), the answer is one body
 * with its length, not a stream: the headers and the events leave in one write. Else the headers
 * leave at once, with the frames ready so far. A client that disconnects only ends this stream
 * (`leave` aborts what feeds it); the run it follows goes on.
 */
export async function sseResponse(
  frames: AsyncIterable<SseFrame>,
  leave: AbortController,
  headers: Record<string, string> = {},
): Promise<Response> {
  const init = {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      ...headers,
    },
  };
  const iterator = frames[Symbol.asyncIterator]();
  let opening: Burst | { readonly failed: unknown } | undefined;
  try {
    opening = await burst(iterator, undefined, true);
    if (opening.done) return new Response(opening.text, init);
  } catch (error) {
    opening = { failed: error };
  }
  let ahead: Promise<IteratorResult<SseFrame>> | undefined;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        let next = opening;
        opening = undefined;
        if (next !== undefined && 'failed' in next) throw next.failed;
        // A pull must enqueue or close: an empty opening burst waits here for its first frame.
        if (next === undefined || next.text === '')
          next = await burst(iterator, next?.ahead ?? ahead);
        ahead = next.ahead;
        if (next.text !== '') controller.enqueue(encoder.encode(next.text));
        if (next.done) controller.close();
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      leave.abort();
      await iterator.return?.();
    },
  });
  return new Response(body, init);
}
