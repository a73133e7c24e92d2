import { ConfigError } from '../../errors.js';
import { type Cursor, parseCursor } from './feed-cursor.js';
import type { FeedHost } from './feed-host.js';
import { openEvents } from './log-feed.js';
import { type FeedEvent, feedEventOf } from './run-event.js';

/** Options of `session.feed()`. */
export interface FeedOptions {
  /**
   * The cursor of the last event seen (`<step>.<n>`, `<step>.0.<k>` for a chunk, `"0.0"` before
   * everything). @default the start of the run going on
   */
  after?: string;
  /** Ends the feed (the run goes on). */
  signal?: AbortSignal;
}

/**
 * The feed of session `id` (see `Session.feed`): what was committed after the cursor, then the
 * run going on, from this process or any other sharing the store, up to its result.
 * @throws ConfigError at once for a cursor that is not one.
 */
export function sessionFeed(
  host: FeedHost,
  id: string,
  options: FeedOptions = {},
): AsyncIterable<FeedEvent> {
  const { after, signal } = options;
  let cursor: Cursor | undefined;
  if (after !== undefined) {
    cursor = typeof after === 'string' ? parseCursor(after) : undefined;
    if (cursor === undefined) {
      throw new ConfigError(
        `session("${id}").feed(): \`after\` must be a cursor <step>.<n> (or <step>.0.<k> for a ` +
          `chunk) as a feed event gives it, got ${JSON.stringify(after)}.`,
        { path: 'after' },
      );
    }
  }
  host.watch();
  return follow(host, id, cursor, signal ?? new AbortController().signal);
}

async function* follow(
  host: FeedHost,
  id: string,
  cursor: Cursor | undefined,
  signal: AbortSignal,
): AsyncGenerator<FeedEvent> {
  const events = await openEvents(host, id, cursor, signal);
  if (events === undefined) return;
  for await (const event of events) {
    if (event.kind === 'error') {
      throw event.error instanceof Error ? event.error : new Error(event.message);
    }
    const shown = feedEventOf(event);
    if (shown !== undefined) yield shown;
  }
}
