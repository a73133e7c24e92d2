import type { AgentMessage, StopMessage } from '../../messages/message.js';
import { stopMessage } from '../../messages/message-factories.js';
import { redactSecrets } from '../../redact.js';
import { thrownText } from '../../value-text.js';
import type { MachineDriver } from './machine-driver.js';
import type { StepFields } from '../state/step.js';
import type { SessionStopRule, StopRule } from '../state/stop-rule.js';

/** The rule's verdict on one delta; a condition that throws names the session. */
async function ruleVerdict(
  rule: SessionStopRule,
  sessionId: string,
  delta: readonly AgentMessage[],
  conditionState: unknown,
  thread: Iterable<AgentMessage>,
  before: readonly AgentMessage[],
): Promise<StopCheck> {
  try {
    return await rule.check(delta, () => [...thread, ...before, ...delta], conditionState);
  } catch (error) {
    const reason = redactSecrets(thrownText(error));
    throw new Error(`Termination condition failed in session "${sessionId}": ${reason}`, {
      cause: error,
    });
  }
}

/** The outcome of one check: a stop (or null) and the condition state after it. */
export interface StopCheck {
  readonly stop: StopMessage | null;
  readonly state: unknown;
}

/**
 * When one session stops: its own stop rule (made from the workflow's on first use) and a stop
 * `session.stop()` requested, which the next check answers. Every session has one, so it has no
 * private methods: they would cost each instance a field (V8's private brand).
 */
export class SessionStop {
  readonly #sessionId: string;
  readonly #workflowRule: StopRule | undefined;
  #rule: SessionStopRule | undefined;
  #request: string | undefined;
  /** The request a check has answered, kept until the stop it caused is committed. */
  #answered: string | undefined;

  constructor(sessionId: string, rule: StopRule | undefined) {
    this.#sessionId = sessionId;
    this.#workflowRule = rule;
  }

  /** True while a requested stop waits for the session's next check. */
  get requested(): boolean {
    return this.#request !== undefined;
  }

  /** Stops the session at its next check, with `reason` as the stop reason. */
  request(reason: string): void {
    this.#request = reason;
  }

  /**
   * Feeds one delta to the rule: the rule sees the whole thread as `thread`, then `before` (what
   * precedes the delta in its step), then `delta`. A requested stop answers here when the rule
   * does not stop. Without a rule the verdict is returned at once, not as a promise.
   */
  check(
    delta: readonly AgentMessage[],
    conditionState: unknown,
    thread: Iterable<AgentMessage>,
    before: readonly AgentMessage[],
  ): StopCheck | Promise<StopCheck> {
    const rule = (this.#rule ??= this.#workflowRule?.forSession(this.#sessionId));
    if (rule === undefined) {
      // No condition: the verdict is known now (a run without one awaits nothing here).
      return this.withRequest({ stop: null, state: conditionState });
    }
    return ruleVerdict(rule, this.#sessionId, delta, conditionState, thread, before).then((check) =>
      this.withRequest(check),
    );
  }

  /**
   * `check`, or the requested stop when `check` does not stop. The request stays until a stop is
   * committed (`committedStop()`): a run that fails before then leaves it for the next check.
   */
  withRequest(check: StopCheck): StopCheck {
    const requested = this.#request;
    if (requested === undefined) return check;
    this.#answered = requested;
    if (check.stop !== null) return check;
    return {
      stop: stopMessage({ source: 'ExternalTermination', content: requested }),
      state: check.state,
    };
  }

  /** A stop was committed: the request a check answered is done (a newer one still waits). */
  committedStop(): void {
    if (this.#answered !== undefined && this.#answered === this.#request) this.#request = undefined;
    this.#answered = undefined;
  }

  /**
   * What a stop for `reason` changes: the machine stops (remembering where), the condition is
   * reset, and the step records the reason (the result's `stopReason`, for readers of the log).
   */
  async change(
    driver: MachineDriver,
    machineState: string,
    conditionState: unknown,
    reason: string,
  ): Promise<StepFields> {
    const rule = (this.#rule ??= this.#workflowRule?.forSession(this.#sessionId));
    const termination = rule === undefined ? conditionState : await rule.resetState(conditionState);
    return {
      machineState: driver.next(machineState, { type: 'stop' }),
      resumeState: machineState,
      status: 'terminated',
      turn: 0,
      termination,
      stopReason: reason,
    };
  }
}
