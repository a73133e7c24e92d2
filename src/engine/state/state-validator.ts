import type { z } from 'zod';

import { firstIssue } from '../../zod-issues.js';
import { stateProblem } from '../../agents/conversation-state.js';
import type { MachineDriver } from '../run/machine-driver.js';
import { SavedStateSchema, type SessionState, SessionStateSchema } from './session-state.js';
import type { StopRule } from './stop-rule.js';

/** The outcome of checking a state: the parsed state, or what is wrong and where. */
export type StateCheck<S> =
  | { readonly ok: true; readonly state: S }
  | { readonly ok: false; readonly problem: string; readonly path: string };

/**
 * The one check of a session state that comes from outside the running engine: a checkpoint being
 * loaded or caught up, a fork's source step, and `loadState()`. Whatever it accepts the engine can
 * run and the loader can read again, so a state accepted once never bricks a session later.
 *
 * It checks the shape (zod), the orchestration's progress with the orchestration's own schema,
 * then what the shape cannot say: the machine states exist in this workflow, a session awaiting
 * input (in a state that asks) holds its pending request, and the termination condition can take
 * the stored condition state.
 */
export class StateValidator {
  readonly #driver: MachineDriver;
  readonly #stopRule: StopRule | undefined;
  readonly #progress: z.ZodType;

  readonly #state: z.ZodType | undefined;

  constructor(
    driver: MachineDriver,
    stopRule: StopRule | undefined,
    progress: z.ZodType,
    state?: z.ZodType,
  ) {
    this.#state = state;
    this.#driver = driver;
    this.#stopRule = stopRule;
    this.#progress = progress;
  }

  /** Checks a stored state (with its step number), as a checkpoint holds it. */
  stored(value: unknown): StateCheck<SessionState> {
    const parsed = SessionStateSchema.safeParse(value);
    if (!parsed.success) return shapeProblem(parsed.error);
    return this.#meaning(parsed.data);
  }

  /** Checks a state from `saveState()`: a stored state without its step number. */
  saved(value: unknown): StateCheck<Omit<SessionState, 'step'>> {
    const parsed = SavedStateSchema.safeParse(value);
    if (!parsed.success) return shapeProblem(parsed.error);
    return this.#meaning(parsed.data);
  }

  #meaning<S extends Omit<SessionState, 'step'>>(state: S): StateCheck<S> {
    // A state stored before orchestrations kept progress has none: the orchestration starts anew.
    if (state.progress !== undefined) {
      const progress = this.#progress.safeParse(state.progress);
      if (!progress.success) {
        const issue = firstIssue(progress.error);
        const path = issue.path === '(root)' ? 'progress' : `progress${pathTail(issue.path)}`;
        const text = issue.text.slice(issue.path.length);
        return { ok: false, problem: `the state is invalid at ${path}${text}`, path };
      }
    }
    for (const [path, name] of [
      ['machineState', state.machineState],
      ['resumeState', state.resumeState],
    ] as const) {
      if (name !== null && !this.#driver.has(name)) {
        return {
          ok: false,
          problem: `the state is at "${name}", which this workflow does not have`,
          path,
        };
      }
    }
    const meta = this.#driver.meta(state.machineState);
    if (
      state.status === 'awaiting_input' &&
      meta.kind === 'input' &&
      meta.asks === true &&
      state.pendingRequest === null
    ) {
      return {
        ok: false,
        problem: 'the session awaits input but holds no pending request',
        path: 'pendingRequest',
      };
    }
    // Without a condition, a stored condition state is kept but has nothing to restore into.
    const problem = this.#stopRule?.problemWith(state.termination) ?? null;
    if (problem !== null) return { ok: false, problem, path: 'termination' };
    // The conversation state: its path starts with `state` (the field's name).
    if (state.data !== undefined || this.#state !== undefined) {
      const bad = stateProblem(this.#state, state.data ?? {});
      if (bad !== undefined) {
        const path = bad.path === '(root)' ? 'state' : `state.${bad.path}`;
        return { ok: false, problem: `the conversation state is invalid at ${bad.text}`, path };
      }
    }
    return { ok: true, state };
  }
}

function shapeProblem(error: Parameters<typeof firstIssue>[0]): {
  ok: false;
  problem: string;
  path: string;
} {
  const issue = firstIssue(error);
  return { ok: false, problem: `the state is invalid at ${issue.text}`, path: issue.path };
}

/** `formatPath`'s text of a path inside `progress`, to follow `progress`: `.ready`, `[0]`. */
function pathTail(path: string): string {
  return path.startsWith('[') ? path : `.${path}`;
}
