import type { StateValue } from './conversation-state.js';
import { ConfigError } from '../errors.js';
import type { AgentMessage } from '../messages/message.js';
import { untilAborted } from '../until-aborted.js';
import { valueText } from '../value-text.js';

/** What a guardrail's `check` receives. */
export interface GuardrailInput {
  /** The task's text (input guardrails) or the answer's text (output guardrails). */
  readonly text: string;
  /** The thread up to and including what is checked. */
  readonly messages: readonly AgentMessage[];
  /** The answering agent; `null` for input guardrails. */
  readonly agent: string | null;
  readonly sessionId: string;
  readonly signal: AbortSignal;
  /** The conversation state: as the task finds it, or as the answer's turn left it. */
  readonly state: StateValue;
}

/** A guardrail's verdict: `tripwire: true` ends the run; `info` says why. */
export interface GuardrailResult {
  readonly tripwire: boolean;
  readonly info?: unknown;
}

/** Options of `guardrail()`. */
export interface GuardrailOptions {
  /** Shown in the stop reason and as the source of the `GuardrailTrippedEvent`. */
  name: string;
  check: (input: GuardrailInput) => GuardrailResult | Promise<GuardrailResult>;
}

/** A policy check on a run's task or an agent's answer, made by `guardrail()`. */
export interface Guardrail {
  readonly name: string;
  check(input: GuardrailInput): GuardrailResult | Promise<GuardrailResult>;
}

/** Input and output guardrails of a workflow (`withGuardrails`, the teams' `guardrails`). */
export interface GuardrailSet {
  readonly input?: readonly Guardrail[];
  readonly output?: readonly Guardrail[];
}

/**
 * Defines a guardrail. Input guardrails check each run's task before any agent sees
 * it; output guardrails check each agent's final answer before it is recorded. A tripwire ends the
 * run with stopReason `Guardrail "<name>" tripped` (+ `: <info>` when info is a string).
 *
 * @example
 * const noCards = guardrail({
 *   name: 'no_card_numbers',
 *   check: ({ text }) => /\b\d{13,16}\b/.test(text)
 *     ? { tripwire: true, info: 'a card number' } : { tripwire: false },
 * });
 * @throws ConfigError for an empty name or a missing `check` function.
 */
export function guardrail(options: GuardrailOptions): Guardrail {
  const name = options?.name;
  if (typeof name !== 'string' || name.trim() === '') {
    throw new ConfigError(
      `guardrail(): name ${JSON.stringify(name)} is invalid. Give it a non-empty name, e.g. "no_card_numbers".`,
      { path: 'name' },
    );
  }
  if (typeof options.check !== 'function') {
    throw new ConfigError(
      `Guardrail "${name}" needs a \`check\` function returning { tripwire, info? }.`,
      { path: 'check' },
    );
  }
  return Object.freeze({ name, check: options.check });
}

/**
 * Checks a guardrail set's lists once, at construction.
 * @throws ConfigError naming `where` for a list that is not an array of `guardrail()`s.
 */
export function checkGuardrails(
  set: GuardrailSet | undefined,
  where: string,
): Required<GuardrailSet> {
  if (set === undefined) return { input: [], output: [] };
  if (set === null || typeof set !== 'object') {
    throw new ConfigError(
      `${where}: guardrails must be { input?: Guardrail[], output?: Guardrail[] }, got ${JSON.stringify(set)}.`,
      { path: 'guardrails' },
    );
  }
  const list = (key: 'input' | 'output'): readonly Guardrail[] => {
    const value = set[key] ?? [];
    if (
      !Array.isArray(value) ||
      value.some((g) => g === null || typeof g !== 'object' || typeof g.check !== 'function')
    ) {
      throw new ConfigError(
        `${where}: guardrails.${key} must be an array of guardrail({ name, check }) objects.`,
        { path: `guardrails.${key}` },
      );
    }
    return [...value];
  };
  return { input: list('input'), output: list('output') };
}

/** The guardrail that tripped and its verdict, or `null` when none did. */
export interface Tripped {
  readonly guardrail: Guardrail;
  readonly info: unknown;
}

/**
 * Runs `guardrails` in order and returns the first that trips.
 * @throws Error naming the guardrail and the session when a check throws; the signal's reason
 * when it aborts while a check is pending.
 */
export async function firstTripped(
  guardrails: readonly Guardrail[],
  input: GuardrailInput,
): Promise<Tripped | null> {
  for (const g of guardrails) {
    let verdict: GuardrailResult;
    try {
      verdict = await untilAborted(g.check(input), input.signal);
    } catch (error) {
      if (input.signal.aborted) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`Guardrail "${g.name}" failed in session "${input.sessionId}": ${reason}`, {
        cause: error,
      });
    }
    if (verdict?.tripwire === true) return { guardrail: g, info: verdict.info };
  }
  return null;
}

/** The stop reason of a tripped guardrail. */
export function trippedReason(tripped: Tripped): string {
  const info = tripped.info;
  return `Guardrail "${tripped.guardrail.name}" tripped${typeof info === 'string' ? `: ${info}` : ''}`;
}

/**
 * The info of a tripped guardrail as text (the `GuardrailTrippedEvent`'s content). It never
 * throws: info a guardrail takes from a database (a BigInt, a null-prototype row) must not turn
 * the stop into a rejected run.
 */
export function infoText(info: unknown): string {
  if (info === undefined || info === null) return '';
  return valueText(info);
}

/**
 * A builder's guardrails after `withGuardrails(given)`: the lists `given` names replace the
 * current ones, the others stay.
 * @throws ConfigError when `given` is not a guardrail set.
 */
export function replaceGuardrails(
  current: Required<GuardrailSet>,
  given: GuardrailSet,
): Required<GuardrailSet> {
  const checked = checkGuardrails(given, 'withGuardrails()');
  return {
    input: given.input === undefined ? current.input : checked.input,
    output: given.output === undefined ? current.output : checked.output,
  };
}
