import type { AgentMessage, StopMessage } from '../messages/message.js';
import { stopMessage } from '../messages/message-factories.js';
import { redactSecrets } from '../redact.js';
import { thrownText } from '../value-text.js';
import type { MachineDriver } from './machine-driver.js';
import type { StepChange } from './session-state.js';
import type { SessionStopRule, StopRule } from './stop-rule.js';

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
   * Feeds one delta to the rule; `thread` gives the whole thread including it. A requested stop
   * answers here when the rule does not stop.
   */
  async check(
    delta: readonly AgentMessage[],
    conditionState: unknown,
    thread: () => readonly AgentMessage[],
  ): Promise<StopCheck> {
    const rule = (this.#rule ??= this.#workflowRule?.forSession());
    let check: StopCheck = { stop: null, state: conditionState };
    if (rule !== undefined) {
      try {
        check = await rule.check(delta, thread, conditionState);
      } catch (error) {
        const reason = redactSecrets(thrownText(error));
        throw new Error(`Termination condition failed in session "${this.#sessionId}": ${reason}`, {
          cause: error,
        });
      }
    }
    const requested = this.#request;
    if (requested === undefined) return check;
    this.#request = undefined;
    if (check.stop !== null) return check;
    return {
      stop: stopMessage({ source: 'ExternalTermination', content: requested }),
      state: check.state,
    };
  }

  /** What a stop changes: the machine stops (remembering where), the condition is reset. */
  async change(
    driver: MachineDriver,
    machineState: string,
    conditionState: unknown,
  ): Promise<Omit<StepChange, 'event'>> {
    const rule = (this.#rule ??= this.#workflowRule?.forSession());
    const termination = rule === undefined ? conditionState : await rule.resetState(conditionState);
    return {
      machineState: driver.next(machineState, { type: 'stop' }),
      resumeState: machineState,
      status: 'terminated',
      turn: 0,
      termination,
    };
  }
}
