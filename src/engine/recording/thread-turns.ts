import type { AgentMessage, ChatMessage, FunctionCall } from '../../messages/message.js';
import { isChatMessage } from '../../messages/message.js';
import { isRecord } from '../../unknown-value.js';
import type { RecordedAnswer, RecordedTurn } from './recording.js';

/** Rewrites one text of a recording (the `redact` option). */
export type Redact = (text: string) => string;

/** What a thread says of a session: its inputs in order and its agent turns in order. */
export interface ThreadPath {
  /**
   * Each block of consecutive user messages (one task), with the turns begun before it; `null`
   * for a run without a task that the thread shows: one that found calls in doubt.
   */
  readonly inputs: readonly ThreadInput[];
  readonly turns: readonly RecordedTurn[];
  /**
   * The guardrail that withheld an agent's answer, when the thread shows one (the
   * answer is not stored, so the session cannot be played again).
   */
  readonly withheld?: string;
}

/** One task of a thread, or a run without a task (`messages: null`). */
export interface ThreadInput {
  readonly messages: AgentMessage[] | null;
  /** How many agent turns began before it. */
  readonly after: number;
  /**
   * The guardrail whose event follows the task at once: it stopped the run, on the task (an input
   * guardrail) or on the first answer (an output guardrail, whose answer is not stored).
   */
  tripped?: string;
}

/**
 * The structural fields of Baton's own values, whose strings name or place things and are never
 * redacted: a message's `id`, `type`, `source`, `createdAt`, `target`, `callId` and `requestId`,
 * a call's `id` and `name`, a result's `callId` and `name`. Only at those places: the same keys
 * inside a message's metadata, a structured message's content or a state value are the user's.
 */
const STRUCTURAL = new Set([
  'id',
  'type',
  'source',
  'createdAt',
  'target',
  'name',
  'callId',
  'requestId',
]);

/** The lists of Baton's values inside a message (calls, results, parts, a handoff's context). */
const BATON_LISTS = new Set(['content', 'toolCalls', 'results', 'context']);

/**
 * A copy of `value` with `redact` applied to every string in it but the structural fields of
 * Baton's own values: `value` is a message or a list of calls, results or messages.
 */
export function redactValue<T extends object>(value: T, redact: Redact | undefined): T {
  if (redact === undefined) return value;
  const copy = structuredClone(value);
  rewrite(copy, redact, true);
  return copy;
}

/** A copy of `value`, a user's value (a state value), with `redact` applied to every string. */
export function redactData(value: unknown, redact: Redact): unknown {
  if (typeof value === 'string') return redact(value);
  if (typeof value !== 'object' || value === null) return value;
  const copy = structuredClone(value);
  rewrite(copy, redact, false);
  return copy;
}

/**
 * Rewrites the strings of a copy in place (so the copy keeps its type). `structural`: `value` is
 * one of Baton's own (a message, a call, a result, or a list of them), whose structural fields stay.
 */
function rewrite(value: unknown, redact: Redact, structural: boolean): void {
  if (Array.isArray(value)) {
    value.forEach((item: unknown, i) => {
      if (typeof item === 'string') value[i] = redact(item);
      else rewrite(item, redact, structural);
    });
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === 'string') {
        if (!structural || !STRUCTURAL.has(key)) value[key] = redact(item);
        continue;
      }
      // Baton's lists stay Baton's, but for a structured message's content (the user's value).
      const baton =
        structural &&
        Array.isArray(item) &&
        BATON_LISTS.has(key) &&
        value.type !== 'StructuredMessage';
      rewrite(item, redact, baton);
    }
  }
}

/**
 * The metadata flag of the prompts a workflow adds on the user's behalf (the handoff workflow's
 * autonomous mode, `AUTONOMOUS_PROMPT_KEY`): the replayed workflow adds them again, so they are
 * not inputs.
 */
const FOLLOW_UP_KEY = 'batonAutonomousPrompt';

/** The events an agent's turn is made of (the engine's markers, e.g. pauses, are not). */
const TURN_EVENTS: ReadonlySet<string> = new Set([
  'ThoughtEvent',
  'ToolCallRequestEvent',
  'ToolCallExecutionEvent',
  'ToolApprovalRequestEvent',
  'ToolInDoubtEvent',
]);

const NO_USAGE = { promptTokens: 0, completionTokens: 0 };

interface OpenTurn {
  agent: string;
  answers: RecordedAnswer[];
  results: RecordedTurn['results'][number][];
  approvals?: FunctionCall[];
  inDoubt?: FunctionCall[];
  handoff?: string;
  brief?: unknown;
  message?: string;
  thoughts: string[];
}

/**
 * Reads a session's thread as inputs and agent turns: each participant's events up to its chat
 * message are one turn, and its model's answers are rebuilt from them (a `ToolCallRequestEvent`
 * is one answer, with the thoughts before it; a text or structured answer is the last). A turn
 * paused for approvals stays open across the user's decisions. Markers the engine adds (pauses,
 * selections, guardrail events) are the path's, not a turn's.
 */
export function threadPath(
  thread: readonly AgentMessage[],
  participants: ReadonlySet<string>,
  redact: Redact | undefined,
): ThreadPath {
  const inputs: ThreadInput[] = [];
  let withheld: string | undefined;
  const turns: OpenTurn[] = [];
  const open = new Map<string, OpenTurn>();
  let lastWasInput = false;
  for (const m of thread) {
    if (m.source === 'user' && m.metadata[FOLLOW_UP_KEY] === true) continue;
    if (m.source === 'user') {
      const block = inputs.at(-1)?.messages;
      if (lastWasInput && block) block.push(redactValue(m, redact));
      else inputs.push({ messages: [redactValue(m, redact)], after: turns.length });
      lastWasInput = true;
      continue;
    }
    if (m.type === 'GuardrailTrippedEvent') {
      // The run stopped here: the next input is a task of its own.
      const block = inputs.at(-1);
      if (lastWasInput && block !== undefined) block.tripped = m.source;
      else withheld ??= m.source;
      lastWasInput = false;
      continue;
    }
    // A request the session made of someone (a budget request at a refused call) ends the input
    // before it: the input after it is a run of its own.
    if (m.type === 'UserInputRequestedEvent') {
      lastWasInput = false;
      continue;
    }
    if (!participants.has(m.source) || !(isChatMessage(m) || TURN_EVENTS.has(m.type))) continue;
    // Calls found in doubt right after the agent's own events: a run without a task found them
    // (after a task, that run found them).
    if (m.type === 'ToolInDoubtEvent' && !lastWasInput) {
      inputs.push({ messages: null, after: turns.length });
    }
    lastWasInput = false;
    let turn = open.get(m.source);
    if (turn === undefined) {
      turn = { agent: m.source, answers: [], results: [], thoughts: [] };
      open.set(m.source, turn);
      turns.push(turn);
    }
    if (isChatMessage(m)) {
      close(turn, m, redact);
      open.delete(m.source);
      continue;
    }
    switch (m.type) {
      case 'ThoughtEvent':
        turn.thoughts.push(redact === undefined ? m.content : redact(m.content));
        break;
      case 'ToolCallRequestEvent': {
        const [first, second] = turn.thoughts;
        turn.answers.push({
          content: second ?? first ?? null,
          toolCalls: redactValue([...m.content], redact),
          usage: m.usage ?? NO_USAGE,
          ...(second === undefined || first === undefined ? {} : { thought: first }),
        });
        turn.thoughts = [];
        break;
      }
      case 'ToolCallExecutionEvent':
        turn.results.push(...redactValue([...m.content], redact));
        break;
      case 'ToolApprovalRequestEvent':
        (turn.approvals ??= []).push(...redactValue([...m.content], redact));
        break;
      case 'ToolInDoubtEvent':
        (turn.inDoubt ??= []).push(...redactValue([...m.content], redact));
        break;
      default:
        break;
    }
  }
  return {
    inputs,
    turns: turns.map(({ thoughts: _thoughts, ...turn }) => turn),
    ...(withheld === undefined ? {} : { withheld }),
  };
}

/** Ends a turn with its chat message: the model's last answer, or the handoff it made. */
function close(turn: OpenTurn, m: ChatMessage, redact: Redact | undefined): void {
  turn.message = m.type;
  const thought = turn.thoughts[0];
  const answer = (content: string): RecordedAnswer => ({
    content: redact === undefined ? content : redact(content),
    toolCalls: [],
    usage: m.usage ?? NO_USAGE,
    ...(thought === undefined ? {} : { thought }),
  });
  switch (m.type) {
    case 'TextMessage':
    case 'StopMessage':
      turn.answers.push(answer(m.content));
      break;
    case 'StructuredMessage':
      turn.answers.push(answer(JSON.stringify(m.content)));
      break;
    case 'HandoffMessage':
      turn.handoff = m.target;
      if (typeof m.brief === 'object' && m.brief !== null)
        turn.brief = redactValue(m.brief, redact);
      else if (m.brief !== undefined) turn.brief = m.brief;
      break;
    case 'ToolCallSummaryMessage':
      break;
  }
}
