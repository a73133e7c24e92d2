import { z } from 'zod';

import type { CommittedStep, SessionState } from './session-state.js';
import type { StoredPatch } from './step-replay.js';

/**
 * The version of the compact step record (`compactStep`). Version 1 step records (`p`: a list of
 * patches, `at` as ISO text) are still read.
 */
export const STEP_VERSION = 2;

/**
 * A compact step record (version 2): the messages it appends in order (`a`), the fields it
 * replaces under short names (`f`, see `FIELD_CODES`), the bookmarks it moves (`b`), the time in
 * epoch milliseconds (`t`), the event (`e`; `@billing` for `agent_response:billing`). Appending
 * needs no position: a record cannot insert into the thread.
 */
export const CompactStepSchema = z.object({
  v: z.literal(STEP_VERSION),
  s: z.number().int().positive(),
  t: z.number().int().nonnegative(),
  e: z.string(),
  a: z.array(z.unknown()).optional(),
  f: z.record(z.string(), z.unknown()).optional(),
  b: z.record(z.string(), z.unknown()).optional(),
});

export type CompactStep = z.infer<typeof CompactStepSchema>;

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
    v: STEP_VERSION,
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
