import { newId } from '../ids.js';

import type { FunctionCall, Usage } from '../messages/message.js';
import { untilAborted } from '../until-aborted.js';
import type { ChatClient, ModelRequest, ModelResult } from './chat-client.js';

/**
 * One scripted answer: a `ModelResult` whose fields may be left out (`content` defaults to the
 * joined `chunks` or `null`, `toolCalls` to `[]`, `usage` to zero tokens), or an `Error`, which
 * the call rejects with. `chunks` are what `createStream` yields before the result; without them
 * it yields the whole `content` as one chunk.
 */
export type ScriptedStep =
  | {
      content?: string | null;
      toolCalls?: FunctionCall[];
      usage?: Usage;
      thought?: string;
      chunks?: string[];
    }
  | Error;

/** The steps in order, or a function that answers call `callIndex` (0-based). */
export type ScriptedSteps =
  | readonly ScriptedStep[]
  | ((request: ModelRequest, callIndex: number) => ScriptedStep | Promise<ScriptedStep>);

/** A request as `ScriptedChatClient.calls` records it: a deep copy, without the signal. */
export type ScriptedCall = Omit<ModelRequest, 'signal'>;

/** Options of `ScriptedChatClient`: what traces call it, and the answer limit it says. */
export interface ScriptedChatClientOptions {
  /** The model name traces show (`chat <model>`); none by default (`chat`). */
  model?: string;
  /** `gen_ai.provider.name` in traces. @default 'baton.scripted' */
  provider?: string;
  /** The answer limit the client says it sets (what a budget in money reserves per call). */
  maxCompletionTokens?: number;
}

const NO_USAGE: Usage = { promptTokens: 0, completionTokens: 0 };

/**
 * A deterministic `ChatClient` for tests, samples and offline demos: it answers each call with the
 * next scripted step and records a deep copy of every request in `calls`. A call past the last
 * step rejects with `ScriptedChatClient has no step for call #5 (4 were scripted)`. An aborted
 * `signal` rejects the call with the signal's reason, also while a step function is pending.
 *
 * @example
 * const client = new ScriptedChatClient([
 *   scriptedToolCall('lookup_invoice', { invoiceId: '42' }),
 *   scriptedText('Invoice 42 is paid.', { promptTokens: 30, completionTokens: 6 }),
 * ]);
 */
export class ScriptedChatClient implements ChatClient {
  readonly model: string | undefined;
  readonly provider: string;
  readonly maxCompletionTokens: number | undefined;
  readonly #steps: ScriptedSteps;
  readonly #calls: ScriptedCall[] = [];

  constructor(steps: ScriptedSteps, options: ScriptedChatClientOptions = {}) {
    this.#steps = typeof steps === 'function' ? steps : [...steps];
    this.model = options.model;
    this.provider = options.provider ?? 'baton.scripted';
    this.maxCompletionTokens = options.maxCompletionTokens;
  }

  /** Deep copies of the requests received so far, oldest first. */
  get calls(): readonly ScriptedCall[] {
    return this.#calls;
  }

  async create(request: ModelRequest): Promise<ModelResult> {
    const step = await this.#next(request);
    return toResult(step);
  }

  async *createStream(request: ModelRequest): AsyncIterable<string | ModelResult> {
    const step = await this.#next(request);
    const result = toResult(step);
    const chunks = step.chunks ?? (result.content ? [result.content] : []);
    for (const chunk of chunks) {
      request.signal?.throwIfAborted();
      yield chunk;
    }
    yield result;
  }

  async #next(request: ModelRequest): Promise<Exclude<ScriptedStep, Error>> {
    const callIndex = this.#calls.length;
    const { signal, ...rest } = request;
    this.#calls.push(structuredClone(rest));
    signal?.throwIfAborted();
    // A step function may abort the signal itself before handing its step back.
    const step = await untilAborted(this.#stepFor(request, callIndex), signal);
    if (step instanceof Error) throw step;
    return step;
  }

  async #stepFor(request: ModelRequest, callIndex: number): Promise<ScriptedStep> {
    const steps = this.#steps;
    if (typeof steps === 'function') {
      const step = await steps(request, callIndex);
      if (step === undefined || step === null) {
        throw new Error(
          `ScriptedChatClient's step function returned nothing for call #${callIndex + 1}. ` +
            'Return a step (or an Error) for every call.',
        );
      }
      return step;
    }
    const step = steps[callIndex];
    if (step === undefined) {
      throw new Error(
        `ScriptedChatClient has no step for call #${callIndex + 1} (${steps.length} were scripted)`,
      );
    }
    return step;
  }
}

/** A step that answers with `text`. */
export function scriptedText(text: string, usage: Usage = NO_USAGE): ScriptedStep {
  return { content: text, toolCalls: [], usage };
}

/**
 * A step that calls the tool `name` with `args` (an object, sent as JSON, or JSON text as is).
 * The call id is random unless given; pass `id` when a test compares ids.
 */
export function scriptedToolCall(name: string, args: unknown = {}, id?: string): ScriptedStep {
  const text = typeof args === 'string' ? args : JSON.stringify(args);
  return {
    content: null,
    toolCalls: [{ id: id ?? newId('call_'), name, arguments: text }],
    usage: NO_USAGE,
  };
}

function toResult(step: Exclude<ScriptedStep, Error>): ModelResult {
  const content = step.content !== undefined ? step.content : (step.chunks?.join('') ?? null);
  const result: ModelResult = {
    content,
    toolCalls: (step.toolCalls ?? []).map((c) => ({ ...c })),
    usage: { ...(step.usage ?? NO_USAGE) },
  };
  if (step.thought !== undefined) result.thought = step.thought;
  return result;
}
