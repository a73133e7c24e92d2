import { z } from 'zod';

import { firstIssue } from '../../zod-issues.js';
import { compactMessage, expandMessage } from './compact-message.js';
import type { CommittedStep, SessionState } from '../state/session-state.js';
import type { StoredPatch } from '../state/step-replay.js';

/**
 * The version of the step records Baton writes (format 3, see `stepRecordBody`). Format 2 records
 * (the same content as a JSON object, messages as they are) and format 1 records (`p`: a list of
 * patches, `at` as ISO text) are still read.
 */
export const STEP_VERSION = 3;

/**
 * A step record's content (what `compactStep` makes and a record of format 2 or 3 holds): the
 * messages it appends in order (`a`), the fields it replaces under short names (`f`, see
 * `FIELD_CODES`), the bookmarks it moves (`b`), the time in epoch milliseconds (`t`), the event
 * (`e`; `@billing` for `agent_response:billing`). Appending needs no position: a record cannot
 * insert into the thread.
 */
const StepContent = {
  s: z.number().int().positive(),
  t: z.number().int().nonnegative(),
  e: z.string(),
  a: z.array(z.unknown()).optional(),
  f: z.record(z.string(), z.unknown()).optional(),
  b: z.record(z.string(), z.unknown()).optional(),
};

/** A format 2 step record: `{"v":2,"s":7,"t":…,"e":"@billing","a":[…],"f":{…},"b":{…}}`. */
export const CompactStepSchema = z.object({ v: z.literal(2), ...StepContent });

/** A step record's content, whichever format (2 or 3) held it. */
export type CompactStep = Omit<z.infer<typeof CompactStepSchema>, 'v'>;

/**
 * A format 3 step record: `[3, s, t, e, a, f, b]`, the content of a format 2 record without its
 * key names, each message as `compactMessage` writes it; `0` stands for an empty `a` or `f` that is
 * followed by more, and empty trailing parts are left out. About 28 bytes of framing less than
 * format 2 per record, and a short text message in about half its JSON (`compactMessage`).
 */
const StepRecordSchema = z.tuple([
  z.literal(STEP_VERSION),
  StepContent.s,
  StepContent.t,
  StepContent.e,
  z.union([z.literal(0), z.array(z.unknown())]).optional(),
  z.union([z.literal(0), z.record(z.string(), z.unknown())]).optional(),
  z.record(z.string(), z.unknown()).optional(),
]);

/** Agent responses are most steps: their event is written `@<agent>` in compact records. */
const RESPONSE_EVENT = 'agent_response:';

/** The short names of the fields a step replaces, in compact step records. */
const FIELD_CODES = {
  machineState: 'm',
  resumeState: 'r',
  status: 's',
  pendingRequest: 'q',
  turn: 'u',
  termination: 'c',
  lastSpeaker: 'l',
  progress: 'g',
} as const satisfies Partial<Record<keyof SessionState, string>>;

const FIELD_OF_CODE: ReadonlyMap<string, string> = new Map(
  Object.entries(FIELD_CODES).map(([field, code]) => [code, field]),
);

/**
 * A committed step as a compact record, from the patches `applyStep` made: appended messages,
 * replaced fields, moved bookmarks. The step number is the record's own; the workflow was checked
 * when the log was loaded, so only snapshots carry it.
 */
export function compactStep(step: CommittedStep): CompactStep {
  const appended: unknown[] = [];
  const fields: Record<string, unknown> = {};
  const bookmarks: Record<string, unknown> = {};
  for (const patch of step.patches) {
    const [key, at] = patch.path;
    if (key === 'thread') appended.push(patch.value);
    else if (key === 'bookmarks') bookmarks[at as string] = patch.value;
    else if (key !== 'step') {
      const code = FIELD_CODES[key as keyof typeof FIELD_CODES];
      if (code === undefined) throw new Error(`encodeStep(): no step writes "${String(key)}".`);
      fields[code] = patch.value;
    }
  }
  return {
    s: step.state.step,
    t: Date.now(),
    e: step.event.startsWith(RESPONSE_EVENT)
      ? `@${step.event.slice(RESPONSE_EVENT.length)}`
      : step.event,
    ...(appended.length === 0 ? {} : { a: appended }),
    ...(Object.keys(fields).length === 0 ? {} : { f: fields }),
    ...(Object.keys(bookmarks).length === 0 ? {} : { b: bookmarks }),
  };
}

/** A compact step record as the patches of a version 1 record, for `StepReplay` to check. */
export function patchesOf(entry: CompactStep, threadLength: number): StoredPatch[] {
  const patches: StoredPatch[] = (entry.a ?? []).map((message, i) => [
    'a',
    ['thread', threadLength + i],
    message,
  ]);
  for (const [code, value] of Object.entries(entry.f ?? {})) {
    // An unknown code becomes a patch no step can make, which the replay refuses by name.
    patches.push(['r', [FIELD_OF_CODE.get(code) ?? `f.${code}`], value]);
  }
  for (const [agent, at] of Object.entries(entry.b ?? {}))
    patches.push(['r', ['bookmarks', agent], at]);
  return patches;
}

/** The event of a compact step record written out (`@billing` is `agent_response:billing`). */
export function eventOf(entry: CompactStep): string {
  return entry.e.startsWith('@') ? `${RESPONSE_EVENT}${entry.e.slice(1)}` : entry.e;
}

/** The JSON text of a format 3 step record holding `entry`. */
export function stepRecordBody(entry: CompactStep): string {
  const messages =
    entry.a === undefined
      ? 0
      : entry.a.map((m) => compactMessage(m as Record<string, unknown>, entry.t));
  const parts: unknown[] = [STEP_VERSION, entry.s, entry.t, entry.e, messages, entry.f ?? 0];
  if (entry.b !== undefined) parts.push(entry.b);
  else {
    while (parts.length > 4 && parts.at(-1) === 0) parts.pop();
  }
  return JSON.stringify(parts);
}

/**
 * The content of a format 3 step record (parsed JSON, a list), or a string saying what is wrong
 * with it.
 */
export function readStepRecord(raw: readonly unknown[]): CompactStep | string {
  const parsed = StepRecordSchema.safeParse(raw);
  if (!parsed.success) return firstIssue(parsed.error).text;
  const [, s, t, e, a, f, b] = parsed.data;
  const entry: { -readonly [K in keyof CompactStep]: CompactStep[K] } = { s, t, e };
  if (a !== undefined && a !== 0) {
    const messages: unknown[] = [];
    for (const [i, compact] of a.entries()) {
      const message = expandMessage(compact, t);
      if (typeof message === 'string') return `[4][${i}]: the message ${message}`;
      messages.push(message);
    }
    entry.a = messages;
  }
  if (f !== undefined && f !== 0) entry.f = f;
  if (b !== undefined) entry.b = b;
  return entry;
}
