import { ConfigError } from '../errors.js';
import type { LLMMessage } from './llm-message.js';
import { applyWindow } from './context-window.js';
import { handoffText, inBriefView } from './handoff-brief.js';
import { asProviderTurns, callsText } from './provider-turns.js';
import { Thread } from './thread.js';
import type { ThreadIndex } from './thread-index.js';
import type {
  AgentMessage,
  ChatMessage,
  FunctionCall,
  FunctionExecutionResult,
  HandoffMessage,
} from './message.js';

/**
 * Which tool calls (with their results) a view removes: `'handoff'` the handoff calls, `'all'`
 * every call, `'none'` none. Dangling calls and results are removed whatever the filter.
 */
export type ToolCallFilter = 'handoff' | 'all' | 'none';

/** Options of `toModelMessages()`. */
export interface ModelViewOptions {
  /** The agent's instructions, sent first as the system message; none when empty or omitted. */
  instructions?: string;
  /** @default 'handoff' */
  toolCallFilter?: ToolCallFilter;
  /**
   * At most this many non-system messages (the most recent), widened only as far as needed so
   * that no tool result loses its call; the notes that keep a request within providers' rules
   * (a first user turn, a last one) come on top. @default unlimited
   */
  contextWindow?: number;
  /**
   * The names of handoff tools, for the `'handoff'` filter.
   * @default every tool name that starts with `handoff_to_`
   */
  handoffToolNames?: ReadonlySet<string>;
  /** `'brief'`: the user's messages, the agent's own and handoffs to it only. @default 'full' */
  history?: HistoryView;
}

/** How much of the other agents' turns a view shows: all of them, or only the briefs handed over. */
export type HistoryView = 'full' | 'brief';

const FILTERS: ReadonlySet<string> = new Set(['handoff', 'all', 'none']);

type Results = ReadonlyMap<string, FunctionExecutionResult>;

/**
 * What the agent `agentName` sees of a thread, as the messages of a model request. A pure function
 * of its arguments:
 *
 * - `instructions` become the system message;
 * - messages from `"user"` become `user` messages; the agent's own chat messages become `assistant`
 *   messages; other agents' chat messages become `user` messages that name their speaker
 *   (`[critic]: Too long`), since not every provider has a `name` field;
 * - the agent's own tool calls become an `assistant` message with `toolCalls`, each followed by its
 *   `tool` result; another agent's calls become one `user` message listing each call with its
 *   result (`[triage] called lookup({"id":42}) -> unpaid`), since a provider may refuse tool calls
 *   to tools the request does not offer;
 * - a `HandoffMessage` from another agent is shown as `[handoff from triage to billing]: <its
 *   content>`. When this agent is its target, its `context` is shown first: a
 *   `ToolCallSummaryMessage` in it (how `Agent` passes on the other tool calls of the answer that
 *   handed off) is shown as the other agent's calls; other chat messages in it are shown as text;
 * - the request starts (after the system message) and ends with a `user` message: a note is added
 *   when it would not (see `asProviderTurns`), as some providers refuse anything else;
 * - `StopMessage`s, `UserInputRequestedEvent`s, `ThoughtEvent`s, `SelectSpeakerEvent`s and
 *   streaming chunks are not shown;
 * - tool calls are filtered by `toolCallFilter` (a handoff call is one named in
 *   `handoffToolNames` or `handoff_to_*`, or one whose result is the text of the `HandoffMessage`
 *   that follows it), and a call without its result (or a result without its call) is always
 *   removed;
 * - `contextWindow` keeps the last n messages after all of that (and before those notes).
 *
 * @throws ConfigError for a `contextWindow` that is not a positive integer or an unknown filter.
 * @example toModelMessages(thread, 'billing', { instructions: 'You handle refunds.' })
 */
export function toModelMessages(
  thread: readonly AgentMessage[],
  agentName: string,
  options: ModelViewOptions = {},
): LLMMessage[] {
  return threadModelMessages(Thread.of(thread), agentName, options);
}

/** `toModelMessages` of a `Thread`: its view is rendered once and extended by new messages. */
export function threadModelMessages(
  thread: Thread,
  agentName: string,
  options: ModelViewOptions = {},
): LLMMessage[] {
  const filter = options.toolCallFilter ?? 'handoff';
  checkOptions(filter, options.contextWindow);
  const briefOnly = options.history === 'brief';
  const view = renderView(thread, agentName, filter, options.handoffToolNames, briefOnly);
  const windowed = applyWindow(view, options.contextWindow);
  const turns = asProviderTurns(windowed, agentName, windowed !== view);
  // `concat` and `slice` copy in one go; a spread walks the array's iterator.
  return options.instructions
    ? systemMessage(options.instructions).concat(turns)
    : turns === view
      ? view.slice()
      : turns;
}

function systemMessage(content: string): LLMMessage[] {
  return [{ role: 'system', content }];
}

/** A rendered view, kept per thread so that the next call renders only the new messages. */
class RenderedView {
  length = 0;
  readonly out: LLMMessage[] = [];
  /** Call ids already shown (a thread may repeat one). */
  readonly rendered = new Set<string>();
  /** Call ids not shown for want of a result: a later result means rendering again. */
  readonly skipped = new Set<string>();
}

/**
 * The messages of the view, before the window and the system message. Threads only grow, so the
 * view of a thread is extended by its new messages — unless one of them changes how an earlier
 * one renders (a late result for a call shown without one, or a handoff whose calls came before),
 * in which case it is rendered again from the start. The result is shared: copy before changing.
 */
function renderView(
  thread: Thread,
  agentName: string,
  filter: ToolCallFilter,
  handoffNames: ReadonlySet<string> | undefined,
  briefOnly: boolean,
): LLMMessage[] {
  const index = thread.index();
  const key = briefOnly
    ? `${viewKey(agentName, filter, handoffNames)}\u0000brief`
    : viewKey(agentName, filter, handoffNames);
  const memo = index.memo;
  const kept = memo.get(key);
  let view = kept instanceof RenderedView ? kept : undefined;
  // The index has checked that `thread` continues the messages it holds, so a view of at most
  // that many messages is a view of a prefix of `thread`.
  const from = view?.length ?? 0;
  if (view === undefined || from > thread.length || invalidates(thread, from, view, index)) {
    view = new RenderedView();
    memo.set(key, view);
  }
  renderInto(view, thread, agentName, filter, handoffNames, index, briefOnly);
  return view.out;
}

// The handoff names of an agent's turns are usually the same set each turn: the keys of its views
// are made once per set, and the set (which a caller may have changed since) is checked against
// the names they were made for without allocating.
interface ViewKeys {
  readonly names: readonly string[];
  /** Per agent and filter (`${agent}\u0000${filter}`): the memo key of its view. */
  readonly keys: Map<string, Map<string, string>>;
}

const viewKeys = new WeakMap<ReadonlySet<string>, ViewKeys>();
const ANY_HANDOFF_NAME: ViewKeys = { names: [], keys: new Map() };
const MAX_AGENT_KEYS = 256;

/** The memo key of the view of `agentName` with `filter` and `handoffNames`. */
function viewKey(
  agentName: string,
  filter: ToolCallFilter,
  handoffNames: ReadonlySet<string> | undefined,
): string {
  const keys = handoffNames === undefined ? ANY_HANDOFF_NAME : keysOf(handoffNames);
  let byFilter = keys.keys.get(agentName);
  if (byFilter === undefined) {
    // Keys outlive no set of names but the default one's: bounded however many names it sees.
    if (keys.keys.size >= MAX_AGENT_KEYS) keys.keys.clear();
    byFilter = new Map();
    keys.keys.set(agentName, byFilter);
  }
  let key = byFilter.get(filter);
  if (key === undefined) {
    const names = handoffNames === undefined ? '*' : keys.names.join(',');
    key = `${agentName}\u0000${filter}\u0000${names}`;
    byFilter.set(filter, key);
  }
  return key;
}

/** The keys of views with `names` (made again when the set changed since they were made). */
function keysOf(names: ReadonlySet<string>): ViewKeys {
  const known = viewKeys.get(names);
  if (known !== undefined && sameNames(known.names, names)) return known;
  const made: ViewKeys = { names: [...names].sort(), keys: new Map() };
  viewKeys.set(names, made);
  return made;
}

function sameNames(known: readonly string[], names: ReadonlySet<string>): boolean {
  if (known.length !== names.size) return false;
  for (const name of known) if (!names.has(name)) return false;
  return true;
}

/** True when a message from `from` on changes how a message before `from` renders. */
function invalidates(
  thread: Thread,
  from: number,
  view: RenderedView,
  index: ThreadIndex,
): boolean {
  const { skipped, rendered } = view;
  if (skipped.size > 0) {
    for (let i = from; i < thread.length; i++) {
      const m = thread.at(i);
      if (m?.type === 'ToolCallExecutionEvent' && m.content.some((r) => skipped.has(r.callId)))
        return true;
    }
  }
  for (let i = index.handoffLinks.length - 1; i >= 0; i--) {
    const link = index.handoffLinks[i];
    if (link === undefined || link.handoff < from) break;
    if (link.ids.some((id) => rendered.has(id))) return true;
  }
  return false;
}

function renderInto(
  view: RenderedView,
  thread: Thread,
  agentName: string,
  filter: ToolCallFilter,
  handoffNames: ReadonlySet<string> | undefined,
  index: ThreadIndex,
  briefOnly: boolean,
): void {
  // The agent's own handoff tools are known by name; another agent's by the default name or by
  // the result that matches its HandoffMessage.
  const isHandoff = (call: FunctionCall, own: boolean) =>
    index.handoffCalls.has(call.id) ||
    (own && handoffNames !== undefined
      ? handoffNames.has(call.name)
      : call.name.startsWith('handoff_to_'));
  const keep = (call: FunctionCall, own: boolean) =>
    filter === 'none' || (filter === 'handoff' && !isHandoff(call, own));
  const { out, rendered } = view;
  const pushCalls = (calls: readonly FunctionCall[], results: Results, name?: string) => {
    const shown: FunctionCall[] = [];
    for (const c of calls) {
      if (!keep(c, name === undefined) || rendered.has(c.id)) continue;
      if (!results.has(c.id)) {
        if (results === index.results) view.skipped.add(c.id);
        continue;
      }
      rendered.add(c.id);
      shown.push(c);
    }
    if (shown.length === 0) return;
    if (name !== undefined) {
      out.push({ role: 'user', content: callsText(name, shown, results) });
      return;
    }
    const toolCalls = shown.map(({ id, name, arguments: args }) => ({ id, name, arguments: args }));
    out.push({ role: 'assistant', content: null, toolCalls });
    for (const { id } of shown) {
      out.push({ role: 'tool', toolCallId: id, content: results.get(id)?.content ?? '' });
    }
  };

  for (let i = view.length; i < thread.length; i++) {
    const message = thread.at(i);
    if (briefOnly && message !== undefined && !inBriefView(message, agentName)) continue;
    switch (message?.type) {
      case 'ToolCallRequestEvent':
        if (filter !== 'all') {
          pushCalls(
            message.content,
            index.results,
            message.source === agentName ? undefined : message.source,
          );
        }
        break;
      case 'HandoffMessage':
        if (message.target === agentName && message.source !== agentName && !briefOnly) {
          renderContext(message, agentName, pushCalls, out);
        }
        out.push(asText(message, agentName));
        break;
      case 'TextMessage':
      case 'StructuredMessage':
      case 'ToolCallSummaryMessage':
        out.push(asText(message, agentName));
        break;
      default:
        break;
    }
  }
  view.length = thread.length;
}

function checkOptions(filter: string, contextWindow: number | undefined): void {
  if (!FILTERS.has(filter)) {
    throw new ConfigError(
      `toModelMessages(): toolCallFilter "${filter}" is unknown. Use "handoff", "all" or "none".`,
      { path: 'toolCallFilter' },
    );
  }
  if (contextWindow !== undefined && !(Number.isInteger(contextWindow) && contextWindow > 0)) {
    throw new ConfigError(
      `toModelMessages(): contextWindow must be a positive integer, got ${contextWindow}. ` +
        'Pass how many recent messages the model sees, or leave it out to show them all.',
      { path: 'contextWindow' },
    );
  }
}

function renderContext(
  handoff: HandoffMessage,
  agentName: string,
  pushCalls: (calls: readonly FunctionCall[], results: Results, name?: string) => void,
  out: LLMMessage[],
): void {
  for (const m of handoff.context ?? []) {
    if (m.type === 'ToolCallSummaryMessage') {
      const results = new Map<string, FunctionExecutionResult>();
      for (const r of m.results) if (!results.has(r.callId)) results.set(r.callId, r);
      pushCalls(m.toolCalls, results, m.source);
    } else if (m.type !== 'StopMessage') {
      out.push(asText(m, agentName));
    }
  }
}

function asText(
  message: Exclude<ChatMessage, { type: 'StopMessage' }>,
  agentName: string,
): LLMMessage {
  const content =
    message.type === 'HandoffMessage'
      ? handoffText(message)
      : message.type !== 'StructuredMessage' || typeof message.content === 'string'
        ? String(message.content)
        : (JSON.stringify(message.content) ?? '');
  if (message.source === agentName) return { role: 'assistant', content };
  if (message.source === 'user') return { role: 'user', content };
  const speaker =
    message.type === 'HandoffMessage'
      ? `handoff from ${message.source} to ${message.target}`
      : message.source;
  return { role: 'user', content: `[${speaker}]: ${content}` };
}
