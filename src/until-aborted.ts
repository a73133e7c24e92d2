/**
 * `pending`, or a rejection with `signal`'s reason as soon as the signal aborts, whichever comes
 * first. The engine awaits every user callback (an agent's turn, a selector, `needsApproval`, a
 * guardrail, a termination condition) through this: a callback that never settles must not keep a
 * cancelled run alive, nor its session's lease held. The callback itself goes on until it sees
 * the signal; its late result or rejection is ignored.
 */
export function untilAborted<T>(
  pending: T | PromiseLike<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  // Without a signal nothing can abort: a native promise is returned as it is (no extra tick).
  if (signal === undefined) return Promise.resolve(pending);
  if (signal.aborted) {
    // The callback may have aborted the signal itself before handing its promise back: that
    // promise is ignored, and its rejection must not surface as an unhandled one.
    Promise.resolve(pending).catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(pending).then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
