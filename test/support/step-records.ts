// Tests that forge step records edit their patches, a list of `[op, path, value]` with the thread
// position of each appended message (the version 1 step record). Baton now writes compact step
// records (version 3, a JSON list with compact messages; version 2 was a JSON object, no positions)
// and still reads versions 1 and 2, so such a test turns a written record into its version 1 form
// first and forges that.
import { readStepRecord } from '../../src/engine/log/compact-step.js';

const FIELDS: Readonly<Record<string, string>> = {
  m: 'machineState',
  r: 'resumeState',
  s: 'status',
  q: 'pendingRequest',
  u: 'turn',
  c: 'termination',
  l: 'lastSpeaker',
  g: 'progress',
};

type Body = Record<string, unknown>;

/** A version 3 body (a JSON list) as the version 2 object it stands for; any other body as it is. */
function asObjectBody(body: Body | readonly unknown[]): Body {
  if (!Array.isArray(body)) return body as Body;
  const entry = readStepRecord(body);
  if (typeof entry === 'string') throw new Error(`not a version 3 step record: ${entry}`);
  return { v: 2, ...entry };
}

/** How many messages a record body (snapshot, version 1 or 2 step) leaves in the thread or adds. */
function messagesOf(written: Body): { readonly set?: number; readonly added: number } {
  const body = asObjectBody(written);
  if (typeof body.state === 'object' && body.state !== null) {
    return { set: ((body.state as Body).thread as unknown[]).length, added: 0 };
  }
  if (body.v === 2) return { added: ((body.a as unknown[] | undefined) ?? []).length };
  const patches = (body.p as [string, unknown[]][] | undefined) ?? [];
  return { added: patches.filter(([op, path]) => op === 'a' && path[0] === 'thread').length };
}

/** The thread's length after the records whose bodies are `bodies`, in order. */
export function threadLengthAfter(bodies: readonly Body[]): number {
  let length = 0;
  for (const body of bodies) {
    const { set, added } = messagesOf(body);
    length = (set ?? length) + added;
  }
  return length;
}

/** A step record body in its version 1 form; `threadLength` is the thread before the step. */
export function asPatchBody(written: Body, threadLength: number): Body {
  const body = asObjectBody(written);
  if (body.v !== 2) return body;
  const p: unknown[] = ((body.a as unknown[] | undefined) ?? []).map((message, i) => [
    'a',
    ['thread', threadLength + i],
    message,
  ]);
  for (const [code, value] of Object.entries((body.f as Body | undefined) ?? {})) {
    p.push(['r', [FIELDS[code] ?? code], value]);
  }
  for (const [agent, at] of Object.entries((body.b as Body | undefined) ?? {})) {
    p.push(['r', ['bookmarks', agent], at]);
  }
  const e = body.e as string;
  const event = e.startsWith('@') ? `agent_response:${e.slice(1)}` : e;
  return { step: body.s, at: new Date(body.t as number).toISOString(), event, p };
}
