import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import type { AnyStateMachine } from 'xstate';

import type { RunOptions, Session, SessionInfo, Task, TaskResult } from '../engine/runnable.js';
import type { CheckpointInfo } from '../engine/log/checkpoint-info.js';
import type { AgentMessage } from '../messages/message.js';
import type { ConditionProgress } from './condition-progress.js';
import type { TimedSpan } from './session-timings.js';

// What the session hub exchanges with the devtools server, the CLI and the page.

/** A decision on a call awaiting approval or in doubt, as the page sends it. */
export interface Decision {
  readonly callId: string;
  readonly approved: boolean;
  readonly reason?: string;
  /** For a call in doubt: the result it had, recorded instead of running it. */
  readonly result?: string;
}
/** A session as the devtools drive it; `checkpoints` exists on workflows that can have a store. */
export interface DevSession extends Omit<Session, 'run' | 'runStream' | 'record'> {
  runStream(task?: Task, options?: RunOptions): AsyncIterable<AgentMessage | TaskResult>;
  checkpoints?(): Promise<CheckpointInfo[]>;
}

/** What the devtools need of a workflow or team, from whichever copy of the library built it. */
export interface DevWorkflow {
  session(id?: string, options?: { from?: { session: string; step: number } }): DevSession;
  readonly machine?: AnyStateMachine;
  /** Where the workflow's sessions are stored, for each step's state patch. */
  readonly checkpointStore?: CheckpointStore | undefined;
}

/** One line of the session list. */
export interface SessionSummary {
  readonly id: string;
  readonly status: SessionInfo['status'] | 'unreadable';
  readonly step: number;
  /** Created or opened by this server, or only found in the store's directory. */
  readonly origin: 'process' | 'store';
}

/** Everything the page shows of one session. */
export interface SessionSnapshot {
  readonly id: string;
  readonly status: SessionInfo['status'];
  readonly step: number;
  readonly pendingRequest?: SessionInfo['pendingRequest'];
  /** The agent a team waits on after it handed off to the user (answer it with a handoff). */
  readonly handoffFrom?: string;
  readonly messages: readonly AgentMessage[];
  readonly active: string | null;
  /** The machine states of the participants taking a turn right now (several in a group step). */
  readonly speaking: readonly string[];
  readonly progress: ConditionProgress | null;
  /** The step log (with each step's state patch), or null with `checkpointsNote` saying why. */
  readonly checkpoints: readonly (CheckpointInfo & { readonly patch?: unknown })[] | null;
  /** The conversation state. */
  readonly state: unknown;
  readonly checkpointsNote?: string;
  /** Recent runs' spans in this process (agent turns, model calls, tools), oldest first. */
  readonly spans: readonly TimedSpan[];
}

/** An event for every open page. */
export interface HubEvent {
  readonly event: 'message' | 'run' | 'result' | 'failure' | 'sessions' | 'span' | 'speakers';
  readonly data: Record<string, unknown>;
}

/** A request the hub refuses, with the HTTP status that says why. */
export class HubRequestError extends Error {
  override readonly name = 'HubRequestError';
  readonly status: 400 | 404 | 409;
  constructor(status: 400 | 404 | 409, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.status = status;
  }
}
