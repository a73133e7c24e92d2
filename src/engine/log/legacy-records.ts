import { z } from 'zod';

import { REPLACEABLE } from '../state/session-state.js';
import type { Step } from '../state/step.js';
import { firstIssue } from '../../zod-issues.js';
import { StepContent, storedContent, type StoredStep, typedStep } from './compact-step.js';

// The step records earlier versions of Baton wrote, still read so that their logs load: both are
// JSON objects (format 3, written now, is a JSON list, see `compact-step.ts`).
//
// - Format 2: `{"v":2,"s":7,"t":…,"e":"@billing","a":[…],"f":{…},"b":{…}}`, the content of a
//   format 3 record under key names, each message as it is.
// - Format 1: `{"step":7,"at":"<ISO>","event":"agent_response:billing","p":[…]}`, what changed as
//   a list of patches `[op, path, value?]` (op `a`dd, `r`eplace or `d`elete), each appended
//   message with its thread position.

/**
 * A step record of format 1 or 2 (parsed JSON, an object) read back; `malformed` says where it is
 * not one, `version` is a format this version of Baton does not read.
 */
export function readLegacyStep(
  raw: unknown,
): StoredStep | { readonly malformed: string } | { readonly version: unknown } {
  // Format 1 records have no `v` (one with the snapshots' `v: 1` is read as format 1, as before).
  const version: unknown =
    typeof raw === 'object' && raw !== null && 'v' in raw ? raw.v : undefined;
  if (version !== undefined && version !== 1 && version !== 2) return { version };
  if (version === 2) {
    const parsed = Format2StepSchema.safeParse(raw);
    if (!parsed.success) return { malformed: firstIssue(parsed.error).text };
    return storedContent(parsed.data);
  }
  const parsed = Format1StepSchema.safeParse(raw);
  if (!parsed.success) return { malformed: firstIssue(parsed.error).text };
  const { step, at, event, p } = parsed.data;
  return { step, at, event, typed: (threadLength) => stepOfPatches(event, p, threadLength) };
}

/** A format 2 step record. */
const Format2StepSchema = z.object({ v: z.literal(2), ...StepContent });

/** A patch as a format 1 record stores it. */
const StoredPatchSchema = z.union([
  z.tuple([
    z.enum(['a', 'r']),
    z.array(z.union([z.string(), z.number().int().nonnegative()])),
    z.unknown(),
  ]),
  z.tuple([z.literal('d'), z.array(z.union([z.string(), z.number().int().nonnegative()]))]),
]);

/** A format 1 step record. */
const Format1StepSchema = z.object({
  step: z.number().int().positive(),
  at: z.string(),
  event: z.string(),
  p: z.array(StoredPatchSchema),
});

type StoredPatch = z.infer<typeof StoredPatchSchema>;

/** The fields a patch may replace whole: those a step replaces, and the last speaker. */
const REPLACEABLE_FIELDS: ReadonlySet<string> = new Set([...REPLACEABLE, 'lastSpeaker']);

/**
 * The typed step a format 1 record holds, its patches checked against what a step can do, or what
 * is wrong with it. `threadLength` is the thread's length before the step. A step can only:
 *
 * - append one message at the end of the thread (`['a', ['thread', length], message]`);
 * - replace one of the fields of `REPLACEABLE` or the last speaker (or add `progress`, which
 *   states stored before it existed lack);
 * - add or move one agent's bookmark (`['a' | 'r', ['bookmarks', agent], n]`).
 *
 * Anything else — inserting, replacing or removing a message, replacing the whole thread — can
 * only come from an edited or forged record (even one whose checksum was recomputed) and is
 * refused. Only a snapshot replaces the thread.
 */
function stepOfPatches(
  event: string,
  patches: readonly StoredPatch[],
  threadLength: number,
): Step | string {
  const append: unknown[] = [];
  const fields: [string, unknown][] = [];
  const bookmarks: [string, unknown][] = [];
  for (const [op, path, value] of patches) {
    const [key, at] = path;
    if (key === 'thread') {
      if (op !== 'a' || path.length !== 2 || typeof at !== 'number') {
        return `a step record ${describe(op, path)}; steps only append to the thread`;
      }
      const length = threadLength + append.length;
      if (at !== length) {
        return (
          `a step record adds a message at position ${at} of a thread of ${length}; ` +
          'steps only append to the thread'
        );
      }
      append.push(value);
    } else if (key === 'bookmarks' && path.length === 2 && typeof at === 'string' && op !== 'd') {
      bookmarks.push([at, value]);
    } else if (
      typeof key === 'string' &&
      REPLACEABLE_FIELDS.has(key) &&
      path.length === 1 &&
      (op === 'r' || (op === 'a' && key === 'progress'))
    ) {
      fields.push([key, value]);
    } else {
      return `a step record ${describe(op, path)}, which no step does`;
    }
  }
  return typedStep(event, append, fields, bookmarks);
}

function describe(op: string, path: readonly (string | number)[]): string {
  const verb = op === 'a' ? 'adds' : op === 'r' ? 'replaces' : 'removes';
  return `${verb} ${JSON.stringify(path)}`;
}
