import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { crc32 } from 'node:zlib';

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  type AgentMessage,
  CheckpointError,
  type CheckpointRecord,
  type CheckpointStore,
  ConfigError,
  FileCheckpointStore,
  HandoffBuilder,
  type LLMMessage,
  MaxMessageTermination,
  MemoryCheckpointStore,
  type ModelRequest,
  ScriptedChatClient,
  type SessionInfo,
  scriptedText,
  scriptedToolCall,
  TextMentionTermination,
  textMessage,
  tool,
} from '../../src/index.js';
import { jsonLogLine, logLine, readLogLine } from '../support/file-log-lines.js';
import { asPatchBody, threadLengthAfter } from '../support/step-records.js';
import { foldIntoOneFileLogs } from '../support/file-store-layout.js';

/**
 * Corrupt checkpoints, fuzzed: whatever is done to a session's stored step log, loading it
 * (`info()`, `messages()`, `run()`) never crashes, never hangs and never silently yields a state
 * other than one the session really had. It rejects with `CheckpointError` (naming the session
 * and a step), or with `ConfigError` only when a record names a different workflow. The one
 * corruption that loads by design: a FileCheckpointStore log whose last line lacks its newline
 * (a torn write) loads as the step before it.
 */

const SESSION = 'fuzz';
const OTHER = 'other';
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
const CALL_TIMEOUT_MS = 5_000;

// ---- the workflow whose log is corrupted --------------------------------------------------------

function lastUserText(request: ModelRequest): string {
  const users = request.messages.filter(
    (m): m is Extract<LLMMessage, { role: 'user' }> => m.role === 'user',
  );
  return users.at(-1)?.content ?? '';
}

/** A fresh workflow object over `store`, as another process would build it. */
function desk(store: CheckpointStore) {
  const lookup = tool({
    name: 'lookup',
    parameters: z.object({ query: z.string() }),
    execute: ({ query }) => `found ${query}`,
  });
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient((request) =>
      scriptedToolCall(
        lastUserText(request).includes('tech') ? 'handoff_to_tech' : 'handoff_to_billing',
      ),
    ),
  });
  const billing = new Agent({
    name: 'billing',
    tools: [lookup],
    maxToolIterations: 2,
    client: new ScriptedChatClient((request) => {
      const last = request.messages.at(-1);
      return last?.role === 'tool'
        ? scriptedText(`Billing: ${last.content}`, { promptTokens: 11, completionTokens: 4 })
        : scriptedToolCall('lookup', { query: lastUserText(request) });
    }),
  });
  const tech = new Agent({
    name: 'tech',
    client: new ScriptedChatClient((request) => scriptedText(`Tech: ${lastUserText(request)}`)),
  });
  return new HandoffBuilder({ name: 'fuzz-desk', participants: [triage, billing, tech] })
    .coordinator(triage)
    .addHandoff(billing, [tech])
    .withTerminationCondition(
      new MaxMessageTermination(500).or(new TextMentionTermination('FINISHED')),
    )
    .withCheckpointing(store)
    .build();
}

// ---- the intact log and what each of its steps loads as ----------------------------------------

interface Reference {
  readonly info: SessionInfo;
  readonly messages: AgentMessage[];
}

let records: CheckpointRecord[] = [];
let otherRecords: CheckpointRecord[] = [];
/** Per step (0: no log yet): what the session was at that step. */
let references: Reference[] = [];
/** The file name FileCheckpointStore gives the session's log. */
let logName = '';
/** The workflow descriptor the snapshot records. */
let workflowDescriptor: unknown;
/** The whole state at the last step, as one snapshot record (for hand-edit cases). */
let finalSnapshot: Record<string, unknown> = {};
const temporary: string[] = [];

/**
 * Record data may be sealed: a CRC-32 (8 hex digits) of the session id, the step and the JSON body
 * in front of the body. Edits below either leave the seal as it was (as a text editor would) or
 * seal again (as a writer with a bug would), to reach the checks behind the checksum.
 */
const SEALED = /^[0-9a-f]{8}(?=[{[])/;
let sealed = false;
const bodyOf = (data: string) => (SEALED.test(data) ? data.slice(8) : data);
const sealOf = (data: string) => (SEALED.test(data) ? data.slice(0, 8) : '');
const seal = (step: number, body: string) =>
  sealed ? crc32(`${SESSION}\n${step}\n${body}`).toString(16).padStart(8, '0') + body : body;
/** Record `i`'s body parsed, a step record in its version 1 form (patches). */
function editedBody(i: number): Record<string, unknown> {
  const record = records[i] as CheckpointRecord;
  const before = records
    .slice(0, i)
    .map((r) => JSON.parse(bodyOf(r.data)) as Record<string, unknown>);
  const parsed = JSON.parse(bodyOf(record.data)) as Record<string, unknown>;
  return asPatchBody(parsed, threadLengthAfter(before));
}

/** Record `i`'s data with its body parsed, changed and encoded; sealed again or not. */
function editedData(i: number, edit: (body: unknown) => unknown, reseal: boolean): string {
  const record = records[i] as CheckpointRecord;
  const body = JSON.stringify(edit(editedBody(i)));
  return reseal ? seal(record.step, body) : sealOf(record.data) + body;
}

const line = (r: CheckpointRecord) => logLine(r);
const fileBytes = (rs: readonly CheckpointRecord[]) =>
  Buffer.from(rs.map((r) => `${line(r)}\n`).join(''), 'utf8');

beforeAll(async () => {
  const store = new MemoryCheckpointStore();
  const workflow = desk(store);
  const session = workflow.session(SESSION);
  await session.run(
    textMessage({
      source: 'user',
      content: 'Q0 my invoice is wrong',
      metadata: { ticket: 7, tags: ['a', 'é'], nested: { deep: [1, null, { k: true }] } },
    }),
  );
  await session.run('Q1 a tech problem');
  await session.run('Q2 the invoice again');
  records = await store.read(SESSION, { from: 'start' });

  const other = workflow.session(OTHER);
  await other.run('Z0 another invoice');
  await other.run('Z1 tech again');
  await other.run('Z2 invoice once more');
  otherRecords = await store.read(OTHER, { from: 'start' });

  references = [{ info: { status: 'idle', step: 0 }, messages: [] }];
  for (const r of records) {
    const fork = workflow.session(`ref-${r.step}`, { from: { session: SESSION, step: r.step } });
    references[r.step] = { info: await fork.info(), messages: await fork.messages() };
  }

  sealed = SEALED.test(records[0]?.data ?? '');
  const first = JSON.parse(bodyOf(records[0]?.data ?? '{}')) as Record<string, unknown>;
  workflowDescriptor = first.workflow;
  const last = records.at(-1)?.step ?? 0;
  const saved = (await session.saveState()) as Record<string, unknown>;
  finalSnapshot = { ...first, step: last, state: { ...saved, step: last } };

  const directory = await mkdtemp(join(tmpdir(), 'baton-fuzz-'));
  temporary.push(directory);
  const file = new FileCheckpointStore(directory);
  for (const r of records) await file.append(SESSION, r);
  // The store keeps a file per record; the fixtures below write the one-file log it wrote before
  // (and still reads), of the same lines.
  await foldIntoOneFileLogs(directory);
  logName = (await readdir(directory)).find((f) => f.endsWith('.log')) ?? '';
  expect(await readFile(join(directory, logName))).toEqual(fileBytes(records));
});

afterAll(async () => {
  await Promise.all(temporary.map((d) => rm(d, { recursive: true, force: true })));
});

// ---- stores holding a (corrupted) log ----------------------------------------------------------

/** A corrupted log as records (Memory) or bytes (File). */
type Layout =
  | { readonly kind: 'records'; readonly records: readonly CheckpointRecord[] }
  | { readonly kind: 'bytes'; readonly bytes: Buffer };

interface Fixture {
  open(): CheckpointStore;
  cleanup(): Promise<void>;
}

interface StoreKind {
  readonly name: 'memory' | 'file';
  /** A store holding `layout`, or undefined when this store cannot hold it at all. */
  materialise(layout: Layout): Promise<Fixture | undefined>;
}

const memoryKind: StoreKind = {
  name: 'memory',
  async materialise(layout) {
    if (layout.kind !== 'records') throw new Error('a memory store holds records');
    const store = new MemoryCheckpointStore();
    for (const r of layout.records) {
      // The store refuses what does not continue its log; such a log cannot exist in it.
      if (!(await store.append(SESSION, r))) return undefined;
    }
    return { open: () => store, cleanup: async () => {} };
  },
};

const fileKind: StoreKind = {
  name: 'file',
  async materialise(layout) {
    const directory = await mkdtemp(join(tmpdir(), 'baton-fuzz-'));
    const bytes = layout.kind === 'bytes' ? layout.bytes : fileBytes(layout.records);
    await writeFile(join(directory, logName), bytes);
    return {
      open: () => new FileCheckpointStore(directory),
      cleanup: () => rm(directory, { recursive: true, force: true }),
    };
  },
};

// ---- what loading may do ------------------------------------------------------------------------

/** The step at which the log may load (if it loads at all), and whether it names another workflow. */
function expectationOf(layout: Layout): { step: number; otherWorkflow: boolean } {
  let datas: string[];
  let step: number;
  if (layout.kind === 'records') {
    datas = layout.records.map((r) => r.data);
    step = layout.records.at(-1)?.step ?? 0;
  } else {
    // A last line without its newline is a torn write: dropped by design.
    const text = layout.bytes.subarray(0, layout.bytes.lastIndexOf(0x0a) + 1).toString('utf8');
    const lines = text.split('\n').slice(0, -1);
    const envelopes = lines.map((l) => {
      try {
        return readLogLine(l) as { step?: unknown; data?: unknown } | null;
      } catch {
        return null;
      }
    });
    // The last complete line's step (a log that loads ends there); any other log must not load.
    const last = envelopes.at(-1)?.step;
    step = typeof last === 'number' ? last : lines.length;
    datas = envelopes.map((e) => (typeof e?.data === 'string' ? e.data : ''));
  }
  const otherWorkflow = datas.some((d) => {
    try {
      const value = JSON.parse(bodyOf(d)) as { workflow?: unknown } | null;
      return (
        value !== null &&
        typeof value === 'object' &&
        'workflow' in value &&
        !isDeepStrictEqual(value.workflow, workflowDescriptor)
      );
    } catch {
      return false;
    }
  });
  return { step, otherWorkflow };
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown } | { hang: true };

async function attempt(work: () => Promise<unknown>): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve({ hang: true }), CALL_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      work().then(
        (value): Outcome => ({ ok: true, value }),
        (error: unknown): Outcome => ({ ok: false, error }),
      ),
      hang,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const describeError = (e: unknown) =>
  e instanceof Error ? `${e.constructor.name} "${e.message}"` : `non-error ${String(e)}`;

/**
 * Loads the session through three fresh workflow objects (`info()`, `messages()`, `run()`) and
 * returns every way they broke the rules; empty when they kept them.
 */
async function problemsLoading(kind: StoreKind, layout: Layout): Promise<string[] | undefined> {
  const fixture = await kind.materialise(layout);
  if (fixture === undefined) return undefined;
  const { step, otherWorkflow } = expectationOf(layout);
  const reference = references[step];
  const problems: string[] = [];
  const judge = (what: string, outcome: Outcome, matches: (value: unknown) => string | null) => {
    if ('hang' in outcome) {
      problems.push(`${what} did not settle within ${CALL_TIMEOUT_MS} ms`);
    } else if (!outcome.ok) {
      const e = outcome.error;
      if (e instanceof CheckpointError) {
        if (e.name !== 'CheckpointError' || e.sessionId !== SESSION || !Number.isInteger(e.step)) {
          problems.push(`${what}: CheckpointError without its facts: ${describeError(e)}`);
        }
      } else if (!(e instanceof ConfigError && otherWorkflow)) {
        problems.push(`${what} rejected with ${describeError(e)}`);
      }
    } else if (reference === undefined) {
      problems.push(`${what} succeeded on a log no session ever had (step ${step})`);
    } else {
      const mismatch = matches(outcome.value);
      if (mismatch !== null) problems.push(`${what} silently loaded ${mismatch}`);
    }
  };
  try {
    judge('info()', await attempt(() => desk(fixture.open()).session(SESSION).info()), (v) =>
      isDeepStrictEqual(v, reference?.info)
        ? null
        : `${JSON.stringify(v)}, expected ${JSON.stringify(reference?.info)}`,
    );
    judge(
      'messages()',
      await attempt(() => desk(fixture.open()).session(SESSION).messages()),
      (v) =>
        isDeepStrictEqual(v, reference?.messages)
          ? null
          : `a thread that differs from step ${step}'s`,
    );
    judge(
      'run()',
      await attempt(() => desk(fixture.open()).session(SESSION).run('Q9 one more invoice')),
      (v) => {
        const status = (v as { status?: string }).status;
        return status === 'awaiting_input' || status === 'terminated'
          ? null
          : `a run that ended ${status}`;
      },
    );
  } finally {
    await fixture.cleanup();
  }
  return problems;
}

/** Fails (with the case and every problem) when loading `layout` broke the rules. */
async function expectSafeLoad(kind: StoreKind, layout: Layout, description: string) {
  const problems = await problemsLoading(kind, layout);
  // A log the store refuses to hold cannot be loaded from it: not a case.
  fc.pre(problems !== undefined);
  if (problems === undefined) return;
  if (problems.length > 0) {
    throw new Error(`${kind.name} store, ${description}:\n  ${problems.join('\n  ')}`);
  }
}

/** The same, outside a property: every case must be one the store can hold. */
async function expectSafeExample(kind: StoreKind, layout: Layout, description: string) {
  const problems = await problemsLoading(kind, layout);
  expect(problems, `${kind.name} store cannot hold ${description}`).toBeDefined();
  if (problems !== undefined && problems.length > 0) {
    throw new Error(`${kind.name} store, ${description}:\n  ${problems.join('\n  ')}`);
  }
}

// ---- mutations ----------------------------------------------------------------------------------

type JsonPath = (string | number)[];

/** Every path inside `value` except inside free-form fields (metadata, the workflow descriptor). */
function pathsIn(value: unknown, prefix: JsonPath = []): JsonPath[] {
  const out: JsonPath[] = [];
  const visit = (key: string | number, child: unknown) => {
    const path = [...prefix, key];
    out.push(path);
    const freeForm = key === 'metadata' || (prefix.length === 0 && key === 'workflow');
    if (!freeForm) out.push(...pathsIn(child, path));
  };
  if (Array.isArray(value)) {
    for (const [i, child] of value.entries()) visit(i, child);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, child] of Object.entries(value)) visit(k, child);
  }
  return out;
}

const jsonType = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const WRONG_VALUES: readonly unknown[] = [null, 0, -1.5, 'x', '', true, [], {}];

function setAt(root: unknown, path: JsonPath, value: unknown): unknown {
  const copy = structuredClone(root);
  let node = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const lastKey = path.at(-1);
  if (lastKey !== undefined) node[lastKey] = value;
  return copy;
}

/** `value` with the field at the `pick`-th path replaced by a value of another JSON type. */
function withWrongType(value: unknown, pick: number, candidate: number) {
  const paths = pathsIn(value);
  const path = paths[pick % paths.length] as JsonPath;
  let old: unknown = value;
  for (const key of path) old = (old as Record<string | number, unknown>)[key];
  let replacement = WRONG_VALUES[candidate % WRONG_VALUES.length];
  for (let i = 1; jsonType(replacement) === jsonType(old); i++) {
    replacement = WRONG_VALUES[(candidate + i) % WRONG_VALUES.length];
  }
  return { path, replacement, value: setAt(value, path, replacement) };
}

const replaceData = (i: number, data: string): CheckpointRecord[] =>
  records.map((r, j) => (j === i ? { ...r, data } : r));

const flipBits = (bytes: Buffer, flips: readonly { at: number; bit: number }[]) => {
  const copy = Buffer.from(bytes);
  for (const { at, bit } of flips) {
    const i = at % copy.length;
    copy[i] = (copy[i] as number) ^ (1 << bit);
  }
  return copy;
};

/** Where `after` first differs from `before`, with some text before it, for failure messages. */
function whereChanged(before: Buffer, after: Buffer): string {
  let i = 0;
  while (i < before.length && before[i] === after[i]) i++;
  const context = before.subarray(Math.max(0, i - 40), i).toString('utf8');
  const was = before.subarray(i, i + 1).toString('latin1');
  const now = after.subarray(i, i + 1).toString('latin1');
  return `byte ${i} after ${JSON.stringify(context)}: ${JSON.stringify(was)} -> ${JSON.stringify(now)}`;
}

const flipsArb = fc.array(fc.record({ at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }), {
  minLength: 1,
  maxLength: 3,
});
const recordIndex = () => fc.nat({ max: records.length - 1 });

/** Record-list edits: the Memory store gets them renumbered (it keeps steps contiguous). */
type ListEdit =
  | { op: 'delete'; i: number }
  | { op: 'duplicate'; i: number }
  | { op: 'swap'; i: number; j: number }
  | { op: 'move'; i: number; j: number };

const listEditArb = (): fc.Arbitrary<ListEdit> =>
  fc.oneof(
    fc.record({ op: fc.constant('delete' as const), i: recordIndex() }),
    fc.record({ op: fc.constant('duplicate' as const), i: recordIndex() }),
    fc.record({ op: fc.constant('swap' as const), i: recordIndex(), j: recordIndex() }),
    fc.record({ op: fc.constant('move' as const), i: recordIndex(), j: recordIndex() }),
  );

function applyEdit<T>(items: readonly T[], edit: ListEdit): T[] {
  const out = [...items];
  const at = (k: number) => out[k] as T;
  switch (edit.op) {
    case 'delete':
      out.splice(edit.i, 1);
      break;
    case 'duplicate':
      out.splice(edit.i + 1, 0, at(edit.i));
      break;
    case 'swap': {
      const a = at(edit.i);
      out[edit.i] = at(edit.j);
      out[edit.j] = a;
      break;
    }
    case 'move': {
      const [item] = out.splice(edit.i, 1);
      out.splice(edit.j, 0, item as T);
      break;
    }
  }
  return out;
}

const KINDS = [memoryKind, fileKind] as const;

describe.each(KINDS)('corrupt checkpoints in the $name store', (kind) => {
  it('load the intact log as it was (sanity)', async () => {
    const layout: Layout =
      kind.name === 'memory'
        ? { kind: 'records', records }
        : { kind: 'bytes', bytes: fileBytes(records) };
    await expectSafeExample(kind, layout, 'the intact log');
  });

  it('truncated at any byte offset: CheckpointError, or (file) the step before a torn last line', async () => {
    if (kind.name === 'file') {
      const bytes = fileBytes(records);
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: bytes.length - 1 }), async (offset) => {
          await expectSafeLoad(
            kind,
            { kind: 'bytes', bytes: bytes.subarray(0, offset) },
            `cut at byte ${offset}`,
          );
        }),
        { numRuns: RUNS },
      );
      return;
    }
    await fc.assert(
      fc.asyncProperty(
        recordIndex(),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        async (i, cut) => {
          const data = records[i]?.data ?? '';
          const offset = Math.floor(cut * data.length);
          await expectSafeLoad(
            kind,
            { kind: 'records', records: replaceData(i, data.slice(0, offset)) },
            `record ${i + 1} cut at character ${offset}`,
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it.skipIf(kind.name !== 'file')(
    'a final line cut off without its newline is a torn write: the previous step resumes (file store only)',
    async () => {
      const lastLength = Buffer.byteLength(`${line(records.at(-1) as CheckpointRecord)}\n`);
      const full = fileBytes(records);
      for (const keep of [0, 1, Math.floor(lastLength / 2), lastLength - 1]) {
        const bytes = full.subarray(0, full.length - lastLength + keep);
        const fixture = await fileKind.materialise({ kind: 'bytes', bytes });
        try {
          const session = desk(fixture?.open() as CheckpointStore).session(SESSION);
          const previous = references[records.length - 1] as Reference;
          expect(await session.info()).toEqual(previous.info);
          expect(await session.messages()).toEqual(previous.messages);
          // The next run appends after the dropped tail, so the log reads back whole.
          await session.run();
          const again = desk(fixture?.open() as CheckpointStore).session(SESSION);
          expect((await again.info()).step).toBeGreaterThanOrEqual(records.length);
          expect((await again.messages()).slice(0, previous.messages.length)).toEqual(
            previous.messages,
          );
        } finally {
          await fixture?.cleanup();
        }
      }
    },
  );

  it('random bit flips: CheckpointError, never a silently different state', async () => {
    await fc.assert(
      fc.asyncProperty(recordIndex(), flipsArb, async (i, flips) => {
        if (kind.name === 'file') {
          const intact = fileBytes(records);
          const bytes = flipBits(intact, flips);
          fc.pre(!bytes.equals(intact));
          await expectSafeLoad(
            kind,
            { kind: 'bytes', bytes },
            `bits flipped at ${whereChanged(intact, bytes)}`,
          );
          return;
        }
        const data = records[i]?.data ?? '';
        const intact = Buffer.from(data, 'utf8');
        const bytes = flipBits(intact, flips);
        const flipped = bytes.toString('utf8');
        fc.pre(flipped !== data);
        await expectSafeLoad(
          kind,
          { kind: 'records', records: replaceData(i, flipped) },
          `record ${i + 1}: bits flipped at ${whereChanged(intact, bytes)}`,
        );
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('wrong JSON types in any field of a record (sealed again or not): CheckpointError', async () => {
    await fc.assert(
      fc.asyncProperty(
        recordIndex(),
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        async (i, pick, candidate, reseal) => {
          let edit: ReturnType<typeof withWrongType> | undefined;
          const data = editedData(
            i,
            (body) => {
              edit = withWrongType(body, pick, candidate);
              return edit.value;
            },
            reseal,
          );
          const edited = replaceData(i, data);
          await expectSafeLoad(
            kind,
            kind.name === 'file'
              ? { kind: 'bytes', bytes: fileBytes(edited) }
              : { kind: 'records', records: edited },
            `record ${i + 1}${reseal ? ' (sealed again)' : ''}: ${JSON.stringify(edit?.path)} = ${JSON.stringify(edit?.replacement)}`,
          );
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it.skipIf(kind.name !== 'file')(
    'wrong JSON types in the stored line around a record: CheckpointError (file store only)',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          recordIndex(),
          fc.constantFrom('step', 'snapshot', 'data'),
          fc.nat(),
          async (i, key, candidate) => {
            // A format 1 line (JSON) among format 2 lines: only it has types to get wrong.
            const envelope = JSON.parse(jsonLogLine(records[i] as CheckpointRecord)) as Record<
              string,
              unknown
            >;
            const edit = withWrongType({ [key]: envelope[key] }, 0, candidate);
            const edited = { ...envelope, ...(edit.value as object) };
            const lines = records.map((r, j) => (j === i ? JSON.stringify(edited) : line(r)));
            await expectSafeLoad(
              kind,
              { kind: 'bytes', bytes: Buffer.from(`${lines.join('\n')}\n`) },
              `line ${i + 1}: ${key} = ${JSON.stringify(edit.replacement)}`,
            );
          },
        ),
        { numRuns: RUNS },
      );
    },
  );

  it('deleted, duplicated and reordered records: CheckpointError (or the intact shorter log)', async () => {
    await fc.assert(
      fc.asyncProperty(listEditArb(), async (edit) => {
        const edited = applyEdit(records, edit);
        const layout: Layout =
          kind.name === 'file'
            ? { kind: 'bytes', bytes: fileBytes(edited) }
            : // Renumbered: the Memory store only ever holds contiguous steps.
              { kind: 'records', records: edited.map((r, k) => ({ ...r, step: k + 1 })) };
        await expectSafeLoad(kind, layout, `records edited ${JSON.stringify(edit)}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('records from another session: CheckpointError', async () => {
    await fc.assert(
      fc.asyncProperty(recordIndex(), async (i) => {
        const foreign = otherRecords[i] as CheckpointRecord;
        const edited = records.map((r, j) => (j === i ? { ...foreign, step: r.step } : r));
        await expectSafeLoad(
          kind,
          kind.name === 'file'
            ? { kind: 'bytes', bytes: fileBytes(edited) }
            : { kind: 'records', records: edited },
          `record ${i + 1} taken from session "${OTHER}"`,
        );
      }),
      { numRuns: records.length * 2 },
    );
    // The whole log of another session under this session's id.
    const layout: Layout =
      kind.name === 'file'
        ? { kind: 'bytes', bytes: fileBytes(otherRecords) }
        : { kind: 'records', records: otherRecords };
    await expectSafeExample(kind, layout, `the whole log of session "${OTHER}"`);
  });

  /** A log of one snapshot holding the whole last state, edited by `edit`. */
  const snapshotLog = (
    edit: (record: Record<string, unknown>, state: Record<string, unknown>) => void,
  ): Layout => {
    const record = structuredClone(finalSnapshot);
    edit(record, record.state as Record<string, unknown>);
    // Sealed again: the edit must be caught by what lies behind the checksum.
    const r: CheckpointRecord = {
      step: records.length,
      snapshot: true,
      data: seal(records.length, JSON.stringify(record)),
    };
    return kind.name === 'file'
      ? { kind: 'bytes', bytes: fileBytes([r]) }
      : { kind: 'records', records: [r] };
  };
  type Thread = Record<string, unknown>[];

  /** `records` with record `i`'s body parsed, changed by `edit` and encoded again. */
  const editRecord = (
    i: number,
    edit: (data: Record<string, unknown>) => void,
    reseal: boolean,
  ): Layout => {
    const data = editedData(
      i,
      (body) => {
        edit(body as Record<string, unknown>);
        return body;
      },
      reseal,
    );
    const edited = replaceData(i, data);
    return kind.name === 'file'
      ? { kind: 'bytes', bytes: fileBytes(edited) }
      : { kind: 'records', records: edited };
  };
  const patchesOf = (data: Record<string, unknown>) => data.p as unknown[][];
  const stateOf = (data: Record<string, unknown>) => data.state as { thread: Thread };

  // The corruptions the properties above find, one deterministic case each.
  it.skipIf(kind.name !== 'file')(
    'the first record (the snapshot) deleted: CheckpointError, not a fresh session (file store only)',
    async () => {
      await expectSafeExample(
        kind,
        { kind: 'bytes', bytes: fileBytes(records.slice(1)) },
        'a log without its first record',
      );
    },
  );

  it('step 2 replaced by step 2 of another session: CheckpointError', async () => {
    const edited = records.map((r, j) => (j === 1 ? (otherRecords[1] as CheckpointRecord) : r));
    await expectSafeExample(
      kind,
      kind.name === 'file'
        ? { kind: 'bytes', bytes: fileBytes(edited) }
        : { kind: 'records', records: edited },
      `step 2 from session "${OTHER}"`,
    );
  });

  it('a patch path element of the wrong type (thread index "x"): CheckpointError', async () => {
    await expectSafeExample(
      kind,
      editRecord(
        1,
        (data) => {
          const path = patchesOf(data)[0]?.[1] as unknown[];
          path[1] = 'x';
        },
        true,
      ),
      'step 2 (sealed again) appending at thread["x"] instead of thread[1]',
    );
  });

  it('a condition-state patch of the wrong type: CheckpointError', async () => {
    await expectSafeExample(
      kind,
      editRecord(
        records.length - 1,
        (data) => {
          const patch = patchesOf(data).find((p) => (p[1] as unknown[])[0] === 'termination');
          if (patch === undefined) throw new Error('the last step has no termination patch');
          patch[2] = null;
        },
        true,
      ),
      `step ${records.length} (sealed again) setting termination to null`,
    );
  });

  it('a character of a message changed (bit flip in content): CheckpointError', async () => {
    await expectSafeExample(
      kind,
      editRecord(
        0,
        (data) => {
          const first = stateOf(data).thread[0] as { content: string };
          first.content = first.content.replace('Q0', 'P0');
        },
        false,
      ),
      'the first message saying "P0" instead of "Q0"',
    );
  });

  it('a tool result whose call id changed (bit flip in callId): CheckpointError', async () => {
    // Format 3 records write a message's type as a number: look for it in the patch form.
    const i = records.findIndex((_r, at) =>
      JSON.stringify(editedBody(at)).includes('"ToolCallExecutionEvent"'),
    );
    await expectSafeExample(
      kind,
      editRecord(
        i,
        (data) => {
          const text = JSON.stringify(data.p).replace(/"callId":"call_/, '"callId":"cbll_');
          data.p = JSON.parse(text);
        },
        false,
      ),
      `step ${i + 1} with a tool result for a call that does not exist`,
    );
  });

  it('hand-edited snapshot, untouched, loads as the last step (sanity)', async () => {
    await expectSafeExample(
      kind,
      snapshotLog(() => {}),
      'the last state as one snapshot',
    );
  });

  it.each<[string, (record: Record<string, unknown>, state: Record<string, unknown>) => void]>([
    [
      'thread[3].type = "Nope"',
      (_r, s) => {
        (s.thread as Thread)[3]!.type = 'Nope';
      },
    ],
    [
      'thread[0].content = 42',
      (_r, s) => {
        (s.thread as Thread)[0]!.content = 42;
      },
    ],
    [
      'thread[0].id = ""',
      (_r, s) => {
        (s.thread as Thread)[0]!.id = '';
      },
    ],
    [
      'thread[0].createdAt = "yesterday"',
      (_r, s) => {
        (s.thread as Thread)[0]!.createdAt = 'yesterday';
      },
    ],
    [
      'thread[0].metadata = "x"',
      (_r, s) => {
        (s.thread as Thread)[0]!.metadata = 'x';
      },
    ],
    [
      'thread = {}',
      (_r, s) => {
        s.thread = {};
      },
    ],
    [
      'status = "paused"',
      (_r, s) => {
        s.status = 'paused';
      },
    ],
    [
      'turn = 1.5',
      (_r, s) => {
        s.turn = 1.5;
      },
    ],
    [
      'bookmarks.billing = -1',
      (_r, s) => {
        s.bookmarks = { billing: -1 };
      },
    ],
    [
      'version = 2 (state)',
      (_r, s) => {
        s.version = 2;
      },
    ],
    [
      'v = 2 (record format)',
      (r) => {
        r.v = 2;
      },
    ],
    [
      'state.step = 99',
      (_r, s) => {
        s.step = 99;
      },
    ],
    [
      'session = "someone-else"',
      (r) => {
        r.session = 'someone-else';
      },
    ],
    [
      'state = null',
      (r) => {
        r.state = null;
      },
    ],
    [
      'machineState = "Nope" (no such state)',
      (_r, s) => {
        s.machineState = 'Nope';
      },
    ],
    [
      'pendingRequest = null while awaiting input',
      (_r, s) => {
        s.pendingRequest = null;
      },
    ],
    [
      'termination = {conditions: [{count: "x"}, ...]} (condition state of the wrong type)',
      (_r, s) => {
        const t = s.termination as { conditions: Record<string, unknown>[] };
        t.conditions[0]!.count = 'x';
      },
    ],
    [
      'termination = null',
      (_r, s) => {
        s.termination = null;
      },
    ],
    [
      'fp = "0000000000000000" (fingerprint damaged, same workflow)',
      (r) => {
        r.fp = '0000000000000000';
      },
    ],
  ])('hand-edited state: %s → CheckpointError', async (name, edit) => {
    await expectSafeExample(kind, snapshotLog(edit), `a snapshot with ${name}`);
  });

  it.each<[string, unknown[]]>([
    ['unknown op', [['x', ['status'], 'idle']]],
    ['path into a missing element', [['r', ['thread', 999, 'content'], 'x']]],
    ['__proto__ path', [['a', ['__proto__', 'polluted'], true]]],
    ['constructor.prototype path', [['a', ['constructor', 'prototype', 'polluted'], true]]],
    ['message of an unknown type', [['a', ['thread', 0], { type: 'Nope' }]]],
  ])('hand-edited patches: %s → CheckpointError, and nothing polluted', async (name, patches) => {
    const i = records.length - 1;
    const layout = editRecord(
      i,
      (data) => {
        data.p = patches;
      },
      true,
    );
    await expectSafeExample(kind, layout, `step ${i + 1} with patches (sealed again): ${name}`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
