import type { AgentMessage } from '../messages/message.js';
import type { TaskResult } from './runnable.js';
import type { MessageSink } from './session-runtime.js';

/**
 * Turns a run that pushes messages into a sink into an async iterable: every message as it is
 * produced, then the `TaskResult`. A rejected run rejects the iteration after the messages it
 * produced.
 */
export async function* streamRun(
  start: (sink: MessageSink) => Promise<TaskResult>,
): AsyncGenerator<AgentMessage | TaskResult> {
  const queue: AgentMessage[] = [];
  let head = 0;
  let wake: (() => void) | undefined;
  let settled: { result: TaskResult } | { error: unknown } | undefined;
  start((message) => {
    queue.push(message);
    wake?.();
  }).then(
    (result) => {
      settled = { result };
      wake?.();
    },
    (error: unknown) => {
      settled = { error };
      wake?.();
    },
  );
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
  if ('error' in settled) throw settled.error;
  yield settled.result;
}
