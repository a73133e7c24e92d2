import type { AgentMessage, StopMessage } from '../../messages/message.js';
import { stopMessage } from '../../messages/message-factories.js';
import { redactSecrets } from '../../redact.js';
import { thrownText } from '../../value-text.js';
import type { MachineDriver } from './machine-driver.js';
import type { StepFields } from '../state/step.js';
import type { SessionStopRule, StopRule } from '../state/stop-rule.js';
import { type CallLimit, LimitedGate } from './call-limit.js';
import { GatedSpend, type ModelGate } from './model-gate.js';
import type {
  ModelCallPlan,
  ModelCallRefusal,
  SettledUsage,
} from '../../termination/model-call.js';

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
  /** The condition state as the current run's model calls left it (see `gate`). */
  spend: GatedSpend | undefined;
  /** The current run's limit beyond the session's conditions (`LIMIT_CALLS`). */
  limit: CallLimit | undefined;
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
    // The step that records this check records what the run's model calls spent.
    if (this.spend !== undefined) conditionState = this.spend.take(conditionState);
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

  /** This session's rule, made from the workflow's on first use. */
  own(): SessionStopRule | undefined {
    return (this.#rule ??= this.#workflowRule?.forSession(this.#sessionId));
  }

  /**
   * The gate of the session's model calls when its rule judges them (made on first use);
   * `committed` reads the committed condition state.
   */
  gate(committed: () => unknown): ModelGate | undefined {
    const rule = this.own();
    const own =
      rule?.limitsModelCalls === true
        ? (this.spend ??= new GatedSpend(this, committed))
        : undefined;
    if (this.limit === undefined) return own;
    return new LimitedGate(own, this.limit, (call, usage) => rule?.price(call, usage));
  }

  /** A run ended: what its calls spent was committed with its steps, or is lost with it. */
  endRun(): void {
    if (this.spend !== undefined) this.spend.pending = undefined;
    this.limit = undefined;
  }

  /** The rule's verdict on a model call about to be made (see `SessionStopRule.admit`). */
  admit(
    call: ModelCallPlan,
    conditionState: unknown,
  ): { refusal: ModelCallRefusal | null; state: unknown } {
    const rule = this.own();
    return rule === undefined
      ? { refusal: null, state: conditionState }
      : rule.admit(call, conditionState);
  }

  /** The condition state once an admitted call has ended. */
  settle(call: ModelCallPlan, usage: SettledUsage, conditionState: unknown): unknown {
    const rule = this.own();
    return rule === undefined ? conditionState : rule.settle(call, usage, conditionState);
  }

  /** The condition state with its budget raised by `amountUsd` (see `SessionStopRule.raise`). */
  raise(amountUsd: number, conditionState: unknown): { raised: boolean; state: unknown } {
    const rule = this.own();
    return rule === undefined
      ? { raised: false, state: conditionState }
      : rule.raise(amountUsd, conditionState);
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
    if (this.spend !== undefined) conditionState = this.spend.take(conditionState);
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
