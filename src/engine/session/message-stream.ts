import type { AgentMessage } from '../../messages/message.js';
import type { RunOptions, TaskResult } from '../runnable.js';
import type { MessageSink } from './session-runtime.js';

type Settled = { result: TaskResult } | { error: unknown };

/**
 * Turns a run that pushes messages into a sink into an async iterable: every message as it is
 * produced, then the `TaskResult`. A rejected run rejects the iteration after the messages it
 * produced. `start` runs with `options` whose signal also aborts when the consumer leaves early
 * (a `break` in `for await`): the run ends `cancelled`, and the iteration ends once it has, so
 * the session is free again when the loop is left.
 */
export async function* streamRun(
  options: RunOptions | undefined,
  start: (options: RunOptions, sink: MessageSink) => Promise<TaskResult>,
): AsyncGenerator<AgentMessage | TaskResult> {
  const leaving = new AbortController();
  const given = options?.signal;
  const signal = given === undefined ? leaving.signal : AbortSignal.any([given, leaving.signal]);
  const queue: AgentMessage[] = [];
  let head = 0;
  let wake: (() => void) | undefined;
  let settled: Settled | undefined;
  const settle = (outcome: Settled): Settled => {
    settled = outcome;
    wake?.();
    return outcome;
  };
  const running = start({ ...options, signal }, (message) => {
    queue.push(message);
    wake?.();
  }).then(
    (result) => settle({ result }),
    (error: unknown) => settle({ error }),
  );
  try {
    for (;;) {
      while (head < queue.length) {
        const message = queue[head] as AgentMessage;
        head++;
        yield message;
      }
      if (settled !== undefined) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    if (settled === undefined) {
      leaving.abort();
      // A run that fails instead of ending cancelled is not kept from the consumer: its failure
      // is what leaving the loop (the iterator's `return()`) rejects with.
      const ended = await running;
      // eslint-disable-next-line no-unsafe-finally -- only reached when the consumer left early
      if ('error' in ended) throw ended.error;
    }
  }
  if ('error' in settled) throw settled.error;
  yield settled.result;
}
