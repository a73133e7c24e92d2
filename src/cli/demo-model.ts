import { randomUUID } from 'node:crypto';

import type { LLMMessage } from '../messages/llm-message.js';
import type { FunctionCall } from '../messages/message.js';
import { speakerOf } from '../messages/provider-turns.js';
import type { ChatClient, ModelRequest, ModelResult } from '../models/chat-client.js';
import { isRecord } from '../unknown-value.js';

/** The roles of the demo desk the offline model can play. */
export type DeskRole = 'triage' | 'billing' | 'refunds' | 'technical' | 'account';

/** A request for a refund of a whole invoice, not of a duplicate charge: the refunds specialist's. */
const FULL_REFUND = /full refund|refund (?:it |the invoice |all of it )?in full|money back/i;

/** A request to cancel or close the account: the account specialist's, whatever else it names. */
const CANCELLATION = /\bcancel|\bclose (?:my|the) account|\bdelete (?:my|the) account|unsubscribe/i;

const TOPICS: readonly [Exclude<DeskRole, 'triage' | 'refunds'>, RegExp][] = [
  ['account', CANCELLATION],
  ['billing', /invoice|inv-\d+|refund|charged|charge|bill|payment|paid/i],
  ['technical', /internet|wifi|connection|outage|error|crash|slow|down|bug|\bapp\b|not working/i],
  ['account', /password|log ?in|sign ?in|locked|account|e-?mail address/i],
];

const lastUserText = (messages: readonly LLMMessage[]): string => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === 'user' && speakerOf(m) === 'user') return m.content;
  }
  return '';
};

// What the user said: other agents' turns and the view's notes are user messages too.
const userTexts = (messages: readonly LLMMessage[]) =>
  messages.flatMap((m) => (m.role === 'user' && speakerOf(m) === 'user' ? [m.content] : []));

/** The results at the end of the request, with the names of the calls they answer. */
function trailingResults(messages: readonly LLMMessage[]): { name: string; content: string }[] {
  const results: { toolCallId: string; content: string }[] = [];
  let i = messages.length - 1;
  for (; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== 'tool') break;
    results.unshift({ toolCallId: m.toolCallId, content: m.content });
  }
  const call = messages[i];
  const calls = call?.role === 'assistant' ? (call.toolCalls ?? []) : [];
  return results.map((r) => ({
    name: calls.find((c) => c.id === r.toolCallId)?.name ?? 'unknown',
    content: r.content,
  }));
}

function parse(content: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(content);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const lastMatch = (texts: readonly string[], pattern: RegExp): string | undefined => {
  for (let i = texts.length - 1; i >= 0; i--) {
    const found = texts[i]?.match(pattern)?.[0];
    if (found !== undefined) return found;
  }
  return undefined;
};

/** The invoice the desk's state records, as the specialist's instructions say it. */
const onRecord = (messages: readonly LLMMessage[]): string | undefined => {
  const first = messages[0];
  return first?.role === 'system' ? first.content.match(/by invoice (INV-\d+)/)?.[1] : undefined;
};

type Answer = { text: string } | { call: string; args: Record<string, unknown> };

/**
 * The built-in offline model of the demo: a deterministic, rule-based `ChatClient` written for the
 * support-desk scenario. It routes by keywords, calls the desk's tools and words answers from
 * their results, so handoffs, tools, pauses and termination can be seen without an API key. It
 * is not a language model: it understands only this scenario. Token counts are estimated from
 * characters (4 per token).
 */
export class OfflineDeskModel implements ChatClient {
  /** Traces name it `chat baton-offline-desk`, served by `baton.offline`. */
  readonly model = 'baton-offline-desk';
  readonly provider = 'baton.offline';
  readonly role: DeskRole;
  readonly #thinkMs: number;

  constructor(role: DeskRole, options: { thinkMs?: number } = {}) {
    this.role = role;
    this.#thinkMs = options.thinkMs ?? 0;
  }

  async create(request: ModelRequest): Promise<ModelResult> {
    if (this.#thinkMs > 0) await delay(this.#thinkMs, request.signal);
    request.signal?.throwIfAborted();
    const answer = this.#answer(request);
    const prompt = JSON.stringify(request.messages).length;
    if ('text' in answer) {
      return {
        content: answer.text,
        toolCalls: [],
        usage: {
          promptTokens: Math.ceil(prompt / 4),
          completionTokens: Math.ceil(answer.text.length / 4),
        },
      };
    }
    const call: FunctionCall = {
      id: `call_${randomUUID().slice(0, 8)}`,
      name: answer.call,
      arguments: JSON.stringify(answer.args),
    };
    return {
      content: null,
      toolCalls: [call],
      usage: {
        promptTokens: Math.ceil(prompt / 4),
        completionTokens: Math.ceil(call.arguments.length / 4) + 5,
      },
    };
  }

  async *createStream(request: ModelRequest): AsyncIterable<string | ModelResult> {
    const result = await this.create(request);
    if (result.content !== null) {
      for (const word of result.content.split(/(?<= )/)) yield word;
    }
    yield result;
  }

  #answer(request: ModelRequest): Answer {
    const offered = new Set((request.tools ?? []).map((t) => t.name));
    const results = trailingResults(request.messages);
    const texts = userTexts(request.messages);
    const text = lastUserText(request.messages);
    switch (this.role) {
      case 'triage':
        return triage(text, request.messages, offered);
      case 'billing':
        return billing(results, text, texts, offered, onRecord(request.messages));
      case 'refunds':
        return refunds(results, text, texts, onRecord(request.messages));
      case 'technical':
        return technical(results, text, texts, offered);
      case 'account':
        return account(results, text, texts);
    }
  }
}

function triage(
  text: string,
  messages: readonly LLMMessage[],
  offered: ReadonlySet<string>,
): Answer {
  const topic = TOPICS.find(([, pattern]) => pattern.test(text))?.[0];
  if (topic !== undefined && offered.has(`handoff_to_${topic}`))
    return { call: `handoff_to_${topic}`, args: {} };
  // A reply without a topic ("yes please") goes back to the specialist who asked.
  for (let i = messages.length - 1; i >= 0; i--) {
    const speaker = speakerOf(messages[i] as LLMMessage);
    if (speaker !== undefined && speaker !== 'user' && offered.has(`handoff_to_${speaker}`)) {
      return { call: `handoff_to_${speaker}`, args: {} };
    }
  }
  return {
    text: 'Hello, this is the support desk. Is it about billing, a technical problem or your account?',
  };
}

function billing(
  results: { name: string; content: string }[],
  text: string,
  texts: readonly string[],
  offered: ReadonlySet<string>,
  recorded: string | undefined,
): Answer {
  const [result] = results;
  if (result !== undefined) {
    if (/^Tool call "\w+" was rejected by the user/.test(result.content)) {
      return { text: 'Understood: I did not refund it. Anything else I can do?' };
    }
    const data = parse(result.content);
    if (data === undefined)
      return {
        text: `That did not work: ${result.content} Which invoice is it about (e.g. INV-1001)?`,
      };
    if (result.name === 'lookup_invoice') {
      // The lookup verified the customer: the guarded handoff to refunds is offered now.
      if (FULL_REFUND.test(text) && offered.has('handoff_to_refunds'))
        return { call: 'handoff_to_refunds', args: {} };
      return Number(data.timesCharged) > 1
        ? {
            text: `Invoice ${data.invoiceId} (${data.amount}) was charged ${data.timesCharged} times. Shall I refund the duplicate charge?`,
          }
        : {
            text: `Invoice ${data.invoiceId} (${data.amount}) was charged once and ${data.refunded} was refunded. Anything else about it?`,
          };
    }
    return {
      text: `Done: ${data.refunded} refunded on ${data.invoiceId} (refund ${data.refundId}). It shows on your statement within 3 days.`,
    };
  }
  if (/error|crash|\bapp\b|internet/i.test(text) && offered.has('handoff_to_technical')) {
    return { call: 'handoff_to_technical', args: {} };
  }
  const id = text.match(/INV-\d+/i)?.[0]?.toUpperCase();
  const known = lastMatch(texts, /INV-\d+/i)?.toUpperCase();
  if (FULL_REFUND.test(text)) {
    // Verified by the invoice in question: refunds takes it. Else looking it up verifies.
    if (offered.has('handoff_to_refunds') && (id === undefined || id === recorded))
      return { call: 'handoff_to_refunds', args: {} };
    const invoiceId = id ?? known;
    if (invoiceId !== undefined) return { call: 'lookup_invoice', args: { invoiceId } };
    return { text: 'Which invoice should be refunded in full? (for example INV-1001)' };
  }
  if (id !== undefined && !/refund|yes/i.test(text))
    return { call: 'lookup_invoice', args: { invoiceId: id } };
  if (known !== undefined && /yes|refund|please/i.test(text)) {
    return { call: 'refund_duplicate_charge', args: { invoiceId: known } };
  }
  if (id !== undefined) return { call: 'lookup_invoice', args: { invoiceId: id } };
  return { text: 'Which invoice is it about? (for example INV-1001)' };
}

function refunds(
  results: { name: string; content: string }[],
  text: string,
  texts: readonly string[],
  recorded: string | undefined,
): Answer {
  const [result] = results;
  if (result !== undefined) {
    if (/^Tool call "\w+" was rejected by the user/.test(result.content)) {
      return { text: 'Understood: I did not refund it. Anything else I can do?' };
    }
    const data = parse(result.content);
    if (data === undefined) return { text: `That did not work: ${result.content}` };
    return {
      text: `Done: ${data.refunded} refunded in full on ${data.invoiceId} (refund ${data.refundId}). It shows on your statement within 3 days.`,
    };
  }
  // The invoice just named, else the one the desk's state records (its instructions say which).
  const invoiceId = (
    text.match(/INV-\d+/i)?.[0] ??
    recorded ??
    lastMatch(texts, /INV-\d+/i)
  )?.toUpperCase();
  if (invoiceId !== undefined) return { call: 'refund_invoice', args: { invoiceId } };
  return { text: 'Which invoice should I refund in full? (for example INV-1001)' };
}

function technical(
  results: { name: string; content: string }[],
  text: string,
  texts: readonly string[],
  _offered: ReadonlySet<string>,
): Answer {
  const [result] = results;
  if (result !== undefined) {
    const data = parse(result.content);
    if (data === undefined) return { text: `That did not work: ${result.content}` };
    if (result.name === 'create_ticket') {
      return {
        text: `Ticket ${data.id} is open for ${data.service}: "${data.summary}". We will email you updates.`,
      };
    }
    return data.status === 'degraded'
      ? {
          text: `The ${data.service} service is degraded (${data.note}). Shall I open a ticket so you hear when it is fixed?`,
        }
      : {
          text: `The ${data.service} service is operational (${data.note}). Please restart the device; shall I open a ticket if it persists?`,
        };
  }
  const servicePattern = /internet|wifi|connection|e-?mail|\bapp\b/i;
  const service = (found: string | undefined) =>
    found === undefined
      ? undefined
      : /mail/i.test(found)
        ? 'email'
        : /app/i.test(found)
          ? 'app'
          : 'internet';
  const now = service(text.match(servicePattern)?.[0]);
  if (/yes|ticket|please/i.test(text)) {
    const earlier = service(lastMatch(texts, servicePattern));
    const summary = [...texts].reverse().find((t) => servicePattern.test(t)) ?? text;
    if (earlier !== undefined)
      return { call: 'create_ticket', args: { service: earlier, summary } };
  }
  if (now !== undefined) return { call: 'check_service_status', args: { service: now } };
  return { text: 'Which service is affected: internet, email or the app?' };
}

function account(
  results: { name: string; content: string }[],
  text: string,
  texts: readonly string[],
): Answer {
  const [result] = results;
  if (result !== undefined) {
    const data = parse(result.content);
    if (data === undefined)
      return {
        text: `I could not do that: ${result.content} Which email address do you sign in with?`,
      };
    if (result.name === 'close_account') {
      return {
        text: `I closed the account of ${data.email}; a confirmation is on its way by email. Anything else?`,
      };
    }
    return {
      text: `${data.wasLocked ? 'I unlocked' : 'I checked'} ${data.email} and sent a password reset link. Anything else?`,
    };
  }
  const cancelling = texts.some((t) => CANCELLATION.test(t));
  const email = text.match(/[\w.+-]+@[\w-]+\.[\w.]+/)?.[0];
  if (email !== undefined) {
    return { call: cancelling ? 'close_account' : 'reset_password', args: { email } };
  }
  return {
    text: cancelling
      ? 'I can close your account. Which email address is it registered under?'
      : 'Which email address do you sign in with?',
  };
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
