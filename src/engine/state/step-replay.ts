import { REPLACEABLE, type SessionState } from './session-state.js';

/** A patch as a step record stores it: `[op, path, value?]`, op `a`dd, `r`eplace or `d`elete. */
export type StoredPatch = readonly [string, readonly (string | number)[], unknown?];

/** The fields a step may replace whole (see `REPLACEABLE`), `lastSpeaker` included. */
const REPLACEABLE_FIELDS: ReadonlySet<string> = new Set([...REPLACEABLE, 'lastSpeaker']);

/**
 * Replays step records onto a state, checking each patch against what a step can do — what
 * `applyStep` writes and nothing else:
 *
 * - append one message at the end of the thread (`['a', ['thread', length], message]`);
 * - replace one of the scalar fields (`machineState`, `status`, `pendingRequest`, ...);
 * - add or move one agent's bookmark (`['a' | 'r', ['bookmarks', agent], n]`).
 *
 * Anything else — inserting, replacing or removing a message, replacing the whole thread — can
 * only come from an edited or forged record (even one whose checksum was recomputed) and is
 * refused. Only a snapshot (reset, `loadState`, a fork's first record) replaces the thread.
 *
 * It applies patches to its own copy, so an agent may be named like any key of a plain object
 * (`constructor`, `toString`): bookmarks are written as own properties, never through a setter,
 * and no patch library's reserved-name rule applies. Work is linear in what the records add.
 */
export class StepReplay {
  readonly #thread: unknown[];
  readonly #fields: Record<string, unknown>;
  readonly #bookmarks: Record<string, unknown>;
  #step: number;

  private constructor(state: SessionState) {
    const { thread, bookmarks, step, ...fields } = state;
    this.#thread = [...thread];
    this.#fields = fields;
    this.#bookmarks = { ...bookmarks };
    this.#step = step;
  }

  /** A replay starting at `state` (a snapshot's, not yet validated), or undefined if it has no thread. */
  static from(state: unknown): StepReplay | undefined {
    const s = state as Partial<Record<keyof SessionState, unknown>> | null;
    if (typeof s !== 'object' || s === null || !Array.isArray(s.thread)) return undefined;
    if (typeof s.bookmarks !== 'object' || s.bookmarks === null) return undefined;
    return new StepReplay(state as SessionState);
  }

  /** Applies one stored patch, or says why a step record cannot hold it. */
  apply(patch: StoredPatch): string | null {
    const [op, path, value] = patch;
    const [key, at] = path;
    if (key === 'thread') {
      if (op !== 'a' || path.length !== 2 || typeof at !== 'number') {
        return `a step record ${describe(op, path)}; steps only append to the thread`;
      }
      if (at !== this.#thread.length) {
        return (
          `a step record adds a message at position ${at} of a thread of ` +
          `${this.#thread.length}; steps only append to the thread`
        );
      }
      this.#thread.push(value);
      return null;
    }
    if (key === 'bookmarks' && path.length === 2 && typeof at === 'string' && op !== 'd') {
      if (at === '__proto__') return 'a step record sets a bookmark of an agent named "__proto__"';
      Object.defineProperty(this.#bookmarks, at, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return null;
    }
    // `progress` (an orchestration's own, e.g. a graph's) is added to states stored before it existed.
    const writes = op === 'r' || (op === 'a' && key === 'progress');
    if (typeof key === 'string' && REPLACEABLE_FIELDS.has(key) && path.length === 1 && writes) {
      this.#fields[key] = value;
      return null;
    }
    return `a step record ${describe(op, path)}, which no step does`;
  }

  /** The thread's length so far: where the next appended message goes. */
  get threadLength(): number {
    return this.#thread.length;
  }

  /** Marks the end of one record: the state is now at `step`. */
  endStep(step: number): void {
    this.#step = step;
  }

  /** The state reached so far (unchecked: the caller validates it). */
  state(): unknown {
    return { ...this.#fields, thread: this.#thread, bookmarks: this.#bookmarks, step: this.#step };
  }
}

function describe(op: string, path: readonly (string | number)[]): string {
  const verb = op === 'a' ? 'adds' : op === 'r' ? 'replaces' : 'removes';
  return `${verb} ${JSON.stringify(path)}`;
}
