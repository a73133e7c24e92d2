import type { FinishedSpan } from '../observability/tracing.js';

/** One span on the devtools page's waterfall: a run, an agent turn, a model call or a tool. */
export interface TimedSpan {
  readonly id: number;
  readonly parentId: number | null;
  readonly runId: number | null;
  readonly name: string;
  readonly operation: FinishedSpan['operation'];
  /** Epoch milliseconds. */
  readonly startTime: number;
  readonly durationMs: number;
  /** Why the span failed; absent when it succeeded or was stopped. */
  readonly errorType?: string;
  /** True when the user's Stop ended it (the abort it failed with is no error of the workflow). */
  readonly stopped?: boolean;
  /** Input and output tokens of a model call. */
  readonly tokens?: { readonly input: number; readonly output: number };
}

/** Spans kept per session: enough for the last few runs of a long conversation. */
const KEEP = 400;

/**
 * The recent spans of the sessions a devtools server drives, from Baton's local span hook (no
 * OpenTelemetry SDK needed): the page draws each run's agent turns with their model calls and tool
 * executions. Only timings and names are kept, never message content.
 */
export class SessionTimings {
  readonly #bySession = new Map<string, TimedSpan[]>();

  /**
   * Keeps `span` when it belongs to a session `isTracked` accepts; returns what was kept. A span
   * that failed in a session `wasStopped` says the user stopped is marked stopped, not failed.
   */
  add(
    span: FinishedSpan,
    isTracked: (sessionId: string) => boolean,
    wasStopped: (sessionId: string) => boolean = () => false,
  ): TimedSpan | undefined {
    const session = span.conversationId;
    if (session === null || !isTracked(session)) return undefined;
    const input = span.attributes['gen_ai.usage.input_tokens'];
    const output = span.attributes['gen_ai.usage.output_tokens'];
    const timed: TimedSpan = {
      id: span.id,
      parentId: span.parentId,
      runId: span.runId,
      name: span.name,
      operation: span.operation,
      startTime: span.startTime,
      durationMs: span.durationMs,
      ...(span.errorType === undefined
        ? {}
        : wasStopped(session)
          ? { stopped: true }
          : { errorType: span.errorType }),
      ...(typeof input === 'number' && typeof output === 'number'
        ? { tokens: { input, output } }
        : {}),
    };
    let list = this.#bySession.get(session);
    if (list === undefined) {
      list = [];
      this.#bySession.set(session, list);
    }
    list.push(timed);
    if (list.length > KEEP) list.splice(0, list.length - KEEP);
    return timed;
  }

  /** The spans kept for `sessionId`, oldest first. */
  of(sessionId: string): readonly TimedSpan[] {
    return this.#bySession.get(sessionId) ?? [];
  }
}
