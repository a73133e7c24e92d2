import type { AgentMessage } from '../../messages/message.js';
import type { StepView } from '../log/step-messages.js';
import type { TaskResult } from '../runnable.js';
import type { Cursor } from './feed-cursor.js';
import type { RunEvent } from './run-event.js';

/**
 * A run in progress in this process, as its stream: every event so far with its cursor, and the
 * readers waiting for more. Chunks are `<step being made>.0.<k>`; a committed step's messages are
 * `<step>.1`... in the order the step appended them; the result follows the last step's messages.
 * Readers that leave do not stop the run.
 */
export class LiveRun {
  readonly sessionId: string;
  readonly events: RunEvent[] = [];
  /** Settles when the run has ended (whatever its outcome). */
  readonly ended: Promise<void>;
  #end: () => void = () => {};
  #done = false;
  readonly #waiting = new Set<() => void>();
  /** Whether the readers' wake-up is due in the check phase. */
  #waking = false;
  /** The last committed step and how many messages it appended. */
  #last: Cursor;
  readonly #steps: StepView[] = [];
  /** How many chunks the step being made has streamed, and other drafts since the last one. */
  #chunks = 0;
  #drafts = 0;
  /** The ids of the messages this run committed (a message streamed after its step is no draft). */
  readonly #committed = new Set<string>();

  /** Where the session stood when the run started: its last step, and that step's messages. */
  readonly base: Cursor;

  constructor(sessionId: string, last: Cursor) {
    this.sessionId = sessionId;
    this.#last = last;
    this.base = last;
    this.ended = new Promise((resolve) => {
      this.#end = resolve;
    });
  }

  get done(): boolean {
    return this.#done;
  }

  /** The last committed step and how many messages it appended. */
  get last(): Cursor {
    return this.#last;
  }

  /** The steps this run committed. */
  get steps(): readonly StepView[] {
    return this.#steps;
  }

  /**
   * A streamed message: a draft of the step being made (a chunk, or a tool event streamed before
   * its step), unless its step was committed already (that step's messages are the record).
   * True when it is kept as a draft.
   */
  message(message: AgentMessage): boolean {
    if (message.source === 'user' || this.#committed.has(message.id)) return false;
    const step = this.#last.step + 1;
    let id: Cursor;
    if (message.type === 'ModelClientStreamingChunkEvent') {
      this.#drafts = 0;
      id = { step, n: 0, chunk: ++this.#chunks };
    } else id = { step, n: 0, chunk: this.#chunks, draft: ++this.#drafts };
    this.#push({ id, kind: 'message', message, draft: true });
    return true;
  }

  /** A committed step. */
  step(view: StepView): void {
    this.#steps.push(view);
    const patch = view.statePatch;
    if (patch !== undefined && patch.length > 0) {
      this.events.push({ id: { step: view.step, n: 0 }, kind: 'state', patch });
    }
    view.messages.forEach((message, i) => {
      this.#committed.add(message.id);
      this.events.push({ id: { step: view.step, n: i + 1 }, kind: 'message', message });
    });
    this.#last = { step: view.step, n: view.messages.length };
    this.#chunks = 0;
    this.#drafts = 0;
    this.#wake();
  }

  /**
   * The run ended with `result`; `baseLength`: how many messages the step before the run appended,
   * when the run committed none of its own (its result follows them).
   */
  finish(result: TaskResult, baseLength?: number): void {
    if (this.#steps.length === 0 && baseLength !== undefined) {
      this.#last = { step: this.#last.step, n: baseLength };
    }
    this.#push({ id: { step: this.#last.step, n: this.#last.n + 1 }, kind: 'result', result });
    this.#close();
  }

  /** The run failed with `message`. */
  fail(message: string, error?: unknown): void {
    const id = { step: this.#last.step, n: this.#last.n + 1 };
    this.#push({ id, kind: 'error', message, error });
    this.#close();
  }

  /** Resolves when there are more than `seen` events, or the run has ended. */
  async more(seen: number, signal?: AbortSignal): Promise<void> {
    if (this.events.length > seen || this.#done || signal?.aborted === true) return;
    await new Promise<void>((resolve) => {
      const wake = () => {
        this.#waiting.delete(wake);
        signal?.removeEventListener('abort', wake);
        resolve();
      };
      this.#waiting.add(wake);
      signal?.addEventListener('abort', wake, { once: true });
    });
  }

  #push(event: RunEvent): void {
    this.events.push(event);
    this.#wake();
  }

  #close(): void {
    this.#done = true;
    this.#committed.clear();
    this.#wake();
    this.#end();
  }

  /**
   * Wakes the readers in the event loop's check phase, not at once: what they do with the new
   * events (encoding, writing to a socket) then runs after the run has gone on to its next store
   * call, while that call is in flight, rather than in front of it.
   */
  #wake(): void {
    if (this.#waking || this.#waiting.size === 0) return;
    this.#waking = true;
    setImmediate(() => {
      this.#waking = false;
      for (const wake of [...this.#waiting]) wake();
    });
  }
}
