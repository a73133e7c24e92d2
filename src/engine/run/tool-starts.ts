import type { TurnStarts } from './agent-turn.js';
import type { TaskMessage } from '../runnable.js';
import type { SessionRun } from './session-run.js';

/** Per run: the calls whose decisions its input gave, whose start is this run's. */
const started = new WeakMap<SessionRun, ReadonlySet<string>>();

/** Notes the calls `task` decides as started by `run`: they run, they are not in doubt. */
export function startedBy(run: SessionRun, task: readonly TaskMessage[]): void {
  const ids = task.flatMap((m) => (m.type === 'ToolApprovalResponseEvent' ? [m.callId] : []));
  started.set(run, new Set(ids));
}

/** How a turn of `run` commits the start of its tool calls. */
export function turnStarts(run: SessionRun, streamed: ReadonlySet<string>): TurnStarts {
  return {
    commit: (step) => run.host.commit(step),
    record: (messages) => run.record(messages, streamed),
    started: started.get(run),
  };
}

/** `starts` whose commits wait for each other: the members of a group start at once. */
export function serialStarts(starts: TurnStarts): TurnStarts {
  let last: Promise<void> = Promise.resolve();
  return {
    ...starts,
    commit: (step) => {
      const next = last.then(() => starts.commit(step));
      last = next.catch(() => {});
      return next;
    },
  };
}
