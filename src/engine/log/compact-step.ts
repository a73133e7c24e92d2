import { z } from 'zod';

import { firstIssue } from '../../zod-issues.js';
import { compactMessage, expandMessage } from './compact-message.js';
import { type CommittedStep, REPLACEABLE } from '../state/session-state.js';
import { eventOf, kindOfEvent, type Step, type StepBody } from '../state/step.js';

/**
 * The version of the step records Baton writes (format 3, see `stepRecordBody`). Formats 1 and 2
 * are still read (`legacy-records.ts`).
 */
export const STEP_VERSION = 3;

/**
 * A step record's content (what `compactStep` makes and a record of format 2 or 3 holds): the
 * messages it appends in order (`a`), the fields it replaces under short names (`f`, see
 * `FIELD_CODES`), the bookmarks it moves (`b`), the time in epoch milliseconds (`t`), the event
 * (`e`; `@billing` for `agent_response:billing`). Appending needs no position: a record cannot
 * insert into the thread.
 */
export const StepContent = {
  s: z.number().int().positive(),
  t: z.number().int().nonnegative(),
  e: z.string(),
  a: z.array(z.unknown()).optional(),
  f: z.record(z.string(), z.unknown()).optional(),
  b: z.record(z.string(), z.unknown()).optional(),
  /**
   * The workflow that wrote the record, when it is not the one that wrote the records before it
   * (a new build took the session over): its fingerprint (`f`) and state version (`v`).
   */
  w: z.object({ f: z.string(), v: z.number().int().positive() }).optional(),
};

/** A step record's content, whichever format (2 or 3) held it. */
export type CompactStep = z.infer<z.ZodObject<typeof StepContent>>;

/**
 * A format 3 step record: `[3, s, t, e, a, f, b, w]`, the content of a format 2 record without its
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
  z.union([z.literal(0), z.record(z.string(), z.unknown())]).optional(),
  StepContent.w,
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
  progress: 'g',
  lastSpeaker: 'l',
  statePatch: 'p',
  stateCalls: 'o',
  stopReason: 'w',
} as const satisfies Record<
  (typeof REPLACEABLE)[number] | 'lastSpeaker' | 'statePatch' | 'stateCalls' | 'stopReason',
  string
>;

const FIELD_OF_CODE: ReadonlyMap<string, string> = new Map(
  Object.entries(FIELD_CODES).map(([field, code]) => [code, field]),
);

/**
 * A committed step as a compact record: what it changed (appended messages, replaced fields,
 * moved bookmarks) and its event. The step number is the record's own; the workflow was checked
 * when the log was loaded, so only snapshots carry it.
 */
export function compactStep(committed: CommittedStep): CompactStep {
  const change = committed.change;
  const fields: Record<string, unknown> = {};
  let replaced = false;
  for (const key of REPLACEABLE) {
    if (!Object.hasOwn(change, key)) continue;
    fields[FIELD_CODES[key]] = change[key];
    replaced = true;
  }
  if (Object.hasOwn(change, 'lastSpeaker')) {
    fields[FIELD_CODES.lastSpeaker] = change.lastSpeaker;
    replaced = true;
  }
  if (change.statePatch !== undefined) {
    fields[FIELD_CODES.statePatch] = change.statePatch;
    if (change.stateCalls !== undefined) fields[FIELD_CODES.stateCalls] = change.stateCalls;
    replaced = true;
  }
  if (change.stopReason !== undefined) {
    fields[FIELD_CODES.stopReason] = change.stopReason;
    replaced = true;
  }
  const event = eventOf(committed.step);
  return {
    s: committed.state.step,
    t: Date.now(),
    e: event.startsWith(RESPONSE_EVENT) ? `@${event.slice(RESPONSE_EVENT.length)}` : event,
    ...(change.append === undefined ? {} : { a: [...change.append] }),
    ...(replaced ? { f: fields } : {}),
    ...(change.bookmarks === undefined ? {} : { b: Object.fromEntries(change.bookmarks) }),
  };
}

/** The event of a compact step record written out (`@billing` is `agent_response:billing`). */
export function storedEvent(entry: CompactStep): string {
  return entry.e.startsWith('@') ? `${RESPONSE_EVENT}${entry.e.slice(1)}` : entry.e;
}

/** A compact step record's content as the typed step it records, or what no step can hold. */
export function stepOfContent(entry: CompactStep): Step | string {
  const fields: [string, unknown][] = [];
  for (const [code, value] of Object.entries(entry.f ?? {})) {
    // An unknown code names a field no step writes, which is refused by name.
    fields.push([FIELD_OF_CODE.get(code) ?? `f.${code}`, value]);
  }
  return typedStep(storedEvent(entry), entry.a ?? [], fields, Object.entries(entry.b ?? {}));
}

/** A step record read back, whichever format holds it. */
export interface StoredStep {
  readonly step: number;
  /** When it was committed: epoch milliseconds, or ISO-8601 text (format 1). */
  readonly at: number | string;
  readonly event: string;
  /** The workflow that wrote it, when the record says (see `StepContent.w`). */
  readonly writer?: { readonly fingerprint: string; readonly version: number } | undefined;
  /** The typed step it holds, given the thread's length before it, or what is wrong with it. */
  typed(threadLength: number): Step | string;
}

/** A format 2 or 3 record's content read back. */
export function storedContent(entry: CompactStep): StoredStep {
  return {
    step: entry.s,
    at: entry.t,
    event: storedEvent(entry),
    ...(entry.w === undefined ? {} : { writer: { fingerprint: entry.w.f, version: entry.w.v } }),
    typed: () => stepOfContent(entry),
  };
}

/**
 * The typed step a stored record holds, from its parts as any format stores them (the messages it
 * appends, the fields it replaces, the bookmarks it moves), or what is wrong with them: an event
 * no step makes, a field no step replaces, a bookmark that is no thread position. The messages and
 * the fields' values are checked with the state they lead to (`replayLog`).
 */
export function typedStep(
  event: string,
  append: readonly unknown[],
  fields: readonly (readonly [string, unknown])[],
  bookmarks: readonly (readonly [string, unknown])[],
): Step | string {
  const kind = kindOfEvent(event);
  if (kind === undefined)
    return `a step record has the event ${JSON.stringify(event)}, which no step makes`;
  const body: { -readonly [K in keyof StepBody]: unknown } = {};
  if (append.length > 0) body.append = append;
  const written: Record<string, unknown> = body;
  for (const [field, value] of fields) {
    if (!Object.hasOwn(FIELD_CODES, field)) {
      return `a step record replaces ${JSON.stringify([field])}, which no step does`;
    }
    if (field === 'statePatch' && !Array.isArray(value)) {
      return `a step record patches the state with ${JSON.stringify(value)}, which is no list of operations`;
    }
    if (field === 'stopReason' && typeof value !== 'string') {
      return `a step record gives the stop reason ${JSON.stringify(value)}, which is no text`;
    }
    if (field === 'stateCalls' && !Array.isArray(value)) {
      return `a step record names the calls of its state patch with ${JSON.stringify(value)}, which is no list`;
    }
    written[field] = value;
  }
  const moved: [string, number][] = [];
  for (const [agent, at] of bookmarks) {
    if (agent === '__proto__') return 'a step record sets a bookmark of an agent named "__proto__"';
    if (typeof at !== 'number') {
      return `a step record moves the bookmark of "${agent}" to ${JSON.stringify(at)}, which is no thread position`;
    }
    moved.push([agent, at]);
  }
  if (moved.length > 0) body.bookmarks = moved;
  // The messages and values are checked with the state they lead to: typed here as they claim.
  return { ...(body as StepBody), ...kind };
}

/** The JSON text of a format 3 step record holding `entry`. */
export function stepRecordBody(entry: CompactStep): string {
  const messages =
    entry.a === undefined
      ? 0
      : entry.a.map((m) => compactMessage(m as Record<string, unknown>, entry.t));
  const parts: unknown[] = [STEP_VERSION, entry.s, entry.t, entry.e, messages, entry.f ?? 0];
  if (entry.w !== undefined) parts.push(entry.b ?? 0, entry.w);
  else if (entry.b !== undefined) parts.push(entry.b);
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
  const [, s, t, e, a, f, b, w] = parsed.data;
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
  if (b !== undefined && b !== 0) entry.b = b;
  if (w !== undefined) entry.w = w;
  return entry;
}
