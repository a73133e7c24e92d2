import type { CheckpointStore } from '../../checkpoint/checkpoint-store.js';
import { isRecord } from '../../unknown-value.js';
import type { FeedHost } from '../feed/feed-host.js';
import type { CheckpointedSession, SessionOptions } from './workflow-runner.js';

/** A built workflow or team (`HandoffWorkflow`, `GraphWorkflow`, `RoundRobinGroupChat`, ...). */
export interface ServedWorkflow {
  session(id?: string, options?: SessionOptions): CheckpointedSession;
  /** The checkpoint store its sessions are kept in, if any. */
  readonly checkpointStore?: CheckpointStore | undefined;
  /**
   * Where its runs report what they do, and their feeds read.
   * @internal the engine's; every built workflow and team has it.
   */
  readonly feedHost: FeedHost;
}

/** True for a built workflow or team (of any copy of Baton). */
export function isServedWorkflow(value: unknown): value is ServedWorkflow {
  return isRecord(value) && typeof value.session === 'function' && isRecord(value.feedHost);
}
