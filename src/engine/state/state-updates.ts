import { z } from 'zod';

import type { StatePatchOp } from '../../agents/conversation-state.js';
import type { StepBody } from './step.js';

// What a session keeps of its conversation state's changes so that `record()` can
// give each back where it was made: the session state's `stateUpdates`.

/** One RFC 6902 operation of a state update, as a store or a recording holds it. */
export const StatePatchOpSchema = z.object({
  op: z.enum(['add', 'remove', 'replace']),
  path: z.string(),
  value: z.unknown().optional(),
});

export const StateUpdateSchema = z.union([
  z.object({ call: z.string(), ops: z.array(StatePatchOpSchema).readonly() }).readonly(),
  z
    .object({ at: z.number().int().nonnegative(), ops: z.array(StatePatchOpSchema).readonly() })
    .readonly(),
]);

/** One change of the conversation state, as a session keeps it for `record()`. */
export type StateUpdate =
  | { readonly call: string; readonly ops: readonly StatePatchOp[] }
  | { readonly at: number; readonly ops: readonly StatePatchOp[] };

/**
 * The updates a step's state patch holds: one per call that made it (`calls`, each naming how many
 * of the next operations are its; a number in place of the call is the application's update made
 * with the thread that long), and what no call names as the application's, made with the
 * thread `at` long. Only the shape of `calls` is checked: the patch itself is what changes the
 * state, and a record whose calls do not cover it exactly still reads.
 * @throws Error when an entry of `calls` is no `[callId, count]` (a record's fault).
 */
export function updatesOf(
  patch: readonly StatePatchOp[],
  calls: StepBody['stateCalls'],
  at: number,
): StateUpdate[] {
  const updates: StateUpdate[] = [];
  let from = 0;
  // A stored record may hold anything here: read as unknown, each entry checked.
  const entries: readonly unknown[] = calls ?? [];
  for (const entry of entries) {
    const call: unknown = Array.isArray(entry) ? entry[0] : undefined;
    const count: unknown = Array.isArray(entry) ? entry[1] : undefined;
    if (
      (typeof call !== 'string' &&
        (typeof call !== 'number' || !Number.isInteger(call) || call < 0)) ||
      typeof count !== 'number' ||
      !Number.isInteger(count) ||
      count < 1
    ) {
      throw new Error(
        `the state patch names its calls with ${JSON.stringify(entry)}, which is no [callId, count]`,
      );
    }
    const ops = patch.slice(from, from + count);
    if (ops.length > 0) updates.push(typeof call === 'number' ? { at: call, ops } : { call, ops });
    from += count;
  }
  if (from < patch.length) updates.push({ at, ops: from === 0 ? patch : patch.slice(from) });
  return updates;
}
