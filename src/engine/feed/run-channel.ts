import type { AgentMessage } from '../../messages/message.js';

/**
 * How the processes sharing a store tell each other what their runs do, beyond the store itself:
 * a queue engine's channel (PostgreSQL LISTEN/NOTIFY, Redis pub/sub). The engine's feed works
 * without one (it reads the store now and then); with one it follows other processes' runs at
 * once, drafts included. The workers' dispatchers provide it.
 */
export interface RunChannel {
  /** True when runs are queued for workers: a `cancelled` step then hands a run on, not ends it. */
  readonly queued: boolean;
  /** Tells every process that the session committed a step. */
  announce(sessionId: string): Promise<void>;
  /** Hears every announced step, from any process; resolves to a function that stops it. */
  listen(heard: (sessionId: string) => void): Promise<() => Promise<void>>;
  /**
   * True while a run of the session waits in the queue (`held`: or is held by a worker that has
   * not taken the session's lease yet).
   */
  pending?(sessionId: string, held: boolean): Promise<boolean>;
  /** The error a worker left for the run that took input `inputId`, when that run failed. */
  failure?(inputId: string): Promise<string | undefined>;
  /**
   * Sends a draft of the step being made (a streaming chunk, a tool event) to the other processes;
   * a draft lost on the way loses nothing (the committed step repeats it).
   */
  publishDraft?(sessionId: string, step: number, message: AgentMessage): void;
  /** Hears the drafts other processes publish; resolves to a function that stops it. */
  listenDrafts?(
    heard: (sessionId: string, step: number, message: AgentMessage) => void,
  ): Promise<() => Promise<void>>;
}
