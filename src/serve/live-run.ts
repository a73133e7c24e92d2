import type { StatePatchOp } from '../agents/conversation-state.js';
import type { TaskResult } from '../engine/runnable.js';
import type { StepView } from '../engine/log/step-messages.js';
import type { AgentMessage } from '../messages/message.js';
import type { Cursor } from './event-cursor.js';

/** One event of a session's stream: a message, or the result that ends a run. */
export type FeedEvent =
  | { readonly id: Cursor; readonly kind: 'message'; readonly message: AgentMessage }
  /** A step changed the conversation state (API.md §18): its JSON Patch, before its messages. */
  | { readonly id: Cursor; readonly kind: 'state'; readonly patch: readonly StatePatchOp[] }
  | { readonly id: Cursor; readonly kind: 'result'; readonly result: TaskResult }
  | {
      readonly id: Cursor;
      readonly kind: 'error';
      readonly message: string;
      /** What the run rejected with (only in the process that ran it). */
      readonly error?: unknown;
    };

/**
 * A run in progress in this process, as its stream: every event so far with its cursor, and the
 * readers waiting for more. Chunks are `<step being made>.0.<k>`; a committed step's messages are
 * `<step>.1`... in the order the step appended them; the result follows the last step's messages.
 * Readers that leave do not stop the run.
 */
export class LiveRun {
  readonly sessionId: string;
  readonly events: FeedEvent[] = [];
  /** Aborts the run (its `signal`). */
  readonly controller: AbortController;
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
  /** How many chunks the step being made has streamed. */
  #chunks = 0;

  /** Where the session stood when the run started: its last step, and that step's messages. */
  readonly base: Cursor;

  constructor(sessionId: string, last: Cursor, controller = new AbortController()) {
    this.sessionId = sessionId;
    this.controller = controller;
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

  /** A streamed message: only chunks are taken here (committed messages come with their step). */
  message(message: AgentMessage): void {
    if (message.type !== 'ModelClientStreamingChunkEvent') return;
    const id = { step: this.#last.step + 1, n: 0, chunk: ++this.#chunks };
    this.#push({ id, kind: 'message', message });
  }

  /** A committed step. */
  step(view: StepView): void {
    this.#steps.push(view);
    const patch = view.statePatch;
    if (patch !== undefined && patch.length > 0) {
      this.events.push({ id: { step: view.step, n: 0 }, kind: 'state', patch });
    }
    view.messages.forEach((message, i) => {
      this.events.push({ id: { step: view.step, n: i + 1 }, kind: 'message', message });
    });
    this.#last = { step: view.step, n: view.messages.length };
    this.#chunks = 0;
    this.#wake();
  }

  /** The run ended with `result`. */
  finish(result: TaskResult): void {
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

  #push(event: FeedEvent): void {
    this.events.push(event);
    this.#wake();
  }

  #close(): void {
    this.#done = true;
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
