import type { z } from 'zod';

import {
  applyStateOps,
  EMPTY_STATE,
  produceState,
  type StatePatchOp,
  type StateRecipe,
  type StateValue,
} from './conversation-state.js';

const NOTHING_TAKEN = Object.freeze({ ops: [], calls: [] });

/**
 * The conversation state as one agent turn sees and changes it: the state the turn
 * began with plus the updates of its finished tool batches, and those updates as JSON Patch
 * operations, which the session commits with the step the turn makes.
 */
export class TurnState {
  readonly schema: z.ZodType | undefined;
  readonly #ops: StatePatchOp[] = [];
  readonly #calls: [callId: string, count: number][] = [];
  /** How many of `#ops` and `#calls` a commit has taken already. */
  #taken = 0;
  #takenCalls = 0;
  #value: StateValue;

  constructor(value: StateValue = EMPTY_STATE, schema?: z.ZodType) {
    this.#value = value;
    this.schema = schema;
  }

  /** The current state (deep-frozen). */
  get value(): StateValue {
    return this.#value;
  }

  /** Every update of the turn so far, in order. */
  get ops(): readonly StatePatchOp[] {
    return this.#ops;
  }

  /**
   * The updates no commit has taken yet, now taken: each goes with exactly one step. `calls` says
   * which call made them (per call, in order, how many of `ops` are its), what a recording
   * replays.
   */
  take(): {
    readonly ops: readonly StatePatchOp[];
    readonly calls: readonly (readonly [callId: string, count: number])[];
  } {
    if (this.#taken === this.#ops.length) return NOTHING_TAKEN;
    const ops = this.#ops.slice(this.#taken);
    const calls = this.#calls.slice(this.#takenCalls);
    this.#taken = this.#ops.length;
    this.#takenCalls = this.#calls.length;
    return { ops, calls };
  }

  /** A batch of concurrent calls: each sees the state as it is now plus its own updates. */
  batch(): StateBatch {
    return new StateBatch(this);
  }

  /** Applies the updates of the finished call `callId` (in call order, by `StateBatch.end`). */
  apply(ops: readonly StatePatchOp[], callId: string): void {
    if (ops.length === 0) return;
    this.#value = applyStateOps(this.#value, ops);
    this.#ops.push(...ops);
    this.#calls.push([callId, ops.length]);
  }
}

/** One call's view of the state: the batch's start plus its own updates. */
export interface CallState {
  readonly state: StateValue;
  updateState(recipe: StateRecipe): void;
}

/** The calls of one batch: their own states, and the updates of those that succeeded. */
export class StateBatch {
  readonly #turn: TurnState;
  readonly #start: StateValue;
  /** Made when a call first reads its state (a batch of handoffs only never does). */
  #calls: Map<string, { value: StateValue; ops: StatePatchOp[]; kept: boolean }> | undefined;

  constructor(turn: TurnState) {
    this.#turn = turn;
    this.#start = turn.value;
  }

  /** The state and `updateState` of the call `callId` (its tool's `ctx`). */
  forCall(callId: string, tool: string): CallState {
    this.#calls ??= new Map();
    let own = this.#calls.get(callId);
    if (own === undefined) {
      own = { value: this.#start, ops: [], kept: false };
      this.#calls.set(callId, own);
    }
    const entry = own;
    const schema = this.#turn.schema;
    return {
      get state() {
        return entry.value;
      },
      updateState(recipe: StateRecipe) {
        if (entry.kept) {
          throw new Error(`Tool "${tool}" updated the state after its call ended.`);
        }
        const next = produceState(entry.value, recipe, schema, `Tool "${tool}": updateState()`);
        entry.value = next.value;
        entry.ops.push(...next.ops);
      },
    };
  }

  /** The call `callId` succeeded: its updates count (a call that threw or timed out has none). */
  keep(callId: string): void {
    const own = this.#calls?.get(callId);
    if (own !== undefined) own.kept = true;
  }

  /** The batch ended: the kept updates are applied in the order of `calls`. */
  end(calls: readonly { readonly id: string }[]): void {
    const byCall = this.#calls;
    if (byCall === undefined) return;
    for (const { id } of calls) {
      const own = byCall.get(id);
      if (own === undefined) continue;
      const kept = own.kept;
      own.kept = true;
      if (kept) this.#turn.apply(own.ops, id);
    }
  }
}

/** Runs one batch of calls with its own view of the state; its updates apply when it ends. */
export async function runBatch<T>(
  calls: readonly { readonly id: string }[],
  state: TurnState,
  run: (batch: StateBatch) => T | Promise<T>,
): Promise<T> {
  const batch = state.batch();
  const results = await run(batch);
  batch.end(calls);
  return results;
}
