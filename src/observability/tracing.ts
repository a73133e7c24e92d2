import { AsyncLocalStorage } from 'node:async_hooks';

import type { Context, Span, Tracer, TracerProvider } from '@opentelemetry/api';

import { fieldOf } from '../unknown-value.js';
import { exceptionOf } from './exception-event.js';
import { captureMessageContent } from './gen-ai-messages.js';
import type { OpenTelemetryApi } from './open-telemetry.js';

/** A span attribute value as OpenTelemetry accepts it. */
export type AttributeValue = string | number | boolean | string[];

/** Attributes; `undefined` values are left out. */
export type SpanAttributes = Readonly<Record<string, AttributeValue | undefined>>;

/** The GenAI operations Baton traces (`gen_ai.operation.name`). */
export type GenAIOperation = 'invoke_workflow' | 'invoke_agent' | 'chat' | 'execute_tool';

/**
 * A span as local subscribers see it once it ended (the devtools' waterfall), whether or not an
 * OpenTelemetry SDK is registered. Times are epoch milliseconds.
 */
export interface FinishedSpan {
  readonly id: number;
  readonly parentId: number | null;
  /** The id of the `invoke_workflow` span this span belongs to (its own id for that span). */
  readonly runId: number | null;
  /** The session (`gen_ai.conversation.id`) of the run this span belongs to. */
  readonly conversationId: string | null;
  readonly name: string;
  readonly operation: GenAIOperation;
  readonly startTime: number;
  readonly durationMs: number;
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly events: readonly { readonly name: string; readonly attributes: SpanAttributes }[];
  /** `error.type` when the span ended in error. */
  readonly errorType?: string;
}

/** Receives every span that ends, in the order they end (children before their parents). */
export type SpanListener = (span: FinishedSpan) => void;

/** What a traced operation may add to its span while it runs. */
export interface SpanScope {
  /** False when nothing observes the span: skip work that only feeds it. */
  readonly recording: boolean;
  set(attributes: SpanAttributes): void;
  event(name: string, attributes: SpanAttributes): void;
  /**
   * Marks the span as failed: status ERROR with `error.type`. `message` becomes the status
   * message only with content capture on: an error's text quotes tool arguments, model output or
   * a provider's echo of the request, all content.
   */
  fail(errorType: string, message?: string): void;
  /**
   * Adds the `exception` event: type and stack frames; with content capture on also the message
   * and the whole stack (credentials redacted).
   */
  exception(error: unknown): void;
}

/** What starts a span. */
export interface SpanSpec {
  readonly name: string;
  readonly operation: GenAIOperation;
  /** `client` for calls that leave the process (model calls). */
  readonly kind: 'client' | 'internal';
  readonly attributes: SpanAttributes;
  /** Sets the conversation id that spans below this one inherit (a workflow run). */
  readonly conversationId?: string;
}

const NOOP_SCOPE: SpanScope = {
  recording: false,
  set() {},
  event() {},
  fail() {},
  exception() {},
};

// Subscribers live on globalThis so that the devtools see the spans of a workflow module that
// loaded its own copy of Baton (as OpenTelemetry's API keeps its providers).
const LISTENERS_KEY = Symbol.for('baton.observability.span-listeners');
const shared: unknown = Reflect.get(globalThis, LISTENERS_KEY);
const listeners: Set<SpanListener> = shared instanceof Set ? shared : new Set();
if (shared !== listeners) Reflect.set(globalThis, LISTENERS_KEY, listeners);

/** Calls `listener` with every Baton span that ends in this process, until the returned function is called. */
export function onSpanEnd(listener: SpanListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

let nextSpanId = 1;

/** A span recorded for local subscribers. */
class LocalSpan {
  readonly id = nextSpanId++;
  readonly parent: LocalSpan | undefined;
  readonly spec: SpanSpec;
  readonly runId: number | null;
  readonly conversationId: string | null;
  readonly startTime = performance.timeOrigin + performance.now();
  readonly #started = performance.now();
  readonly attributes: Record<string, AttributeValue> = {};
  readonly events: { name: string; attributes: SpanAttributes }[] = [];
  errorType: string | undefined;

  constructor(spec: SpanSpec, parent: LocalSpan | undefined) {
    this.spec = spec;
    this.parent = parent;
    const run = spec.operation === 'invoke_workflow';
    this.runId = run ? this.id : (parent?.runId ?? null);
    this.conversationId = spec.conversationId ?? parent?.conversationId ?? null;
    copyDefined(this.attributes, spec.attributes);
  }

  finish(): FinishedSpan {
    return {
      id: this.id,
      parentId: this.parent?.id ?? null,
      runId: this.runId,
      conversationId: this.conversationId,
      name: this.spec.name,
      operation: this.spec.operation,
      startTime: this.startTime,
      durationMs: performance.now() - this.#started,
      attributes: this.attributes,
      events: this.events,
      ...(this.errorType === undefined ? {} : { errorType: this.errorType }),
    };
  }
}

function copyDefined(target: Record<string, AttributeValue>, source: SpanAttributes): void {
  for (const key in source) {
    const value = source[key];
    if (value !== undefined) target[key] = value;
  }
}

/** What the scope of a running span holds for the spans started inside it. */
interface ActiveScope {
  readonly context: Context | undefined;
  readonly local: LocalSpan | undefined;
}

/**
 * Opens spans through OpenTelemetry's global API (when installed) and for local subscribers. With
 * neither an SDK nor a subscriber, `span()` only calls the work: a started no-op span is dropped
 * at once and no context is entered.
 */
export class Tracing {
  readonly #api: OpenTelemetryApi | undefined;
  readonly #version: string;
  readonly #scope = new AsyncLocalStorage<ActiveScope>();
  #provider: TracerProvider | undefined;
  #tracer: Tracer | undefined;

  constructor(api: OpenTelemetryApi | undefined, version: string) {
    this.#api = api;
    this.#version = version;
  }

  /** The version spans and metrics are reported under (`trace.getTracer('baton', version)`). */
  get version(): string {
    return this.#version;
  }

  /**
   * True when a span started now would be recorded: a local subscriber listens, or an SDK is
   * registered. Callers skip building a span's name and attributes when it is false.
   */
  get active(): boolean {
    if (listeners.size > 0) return true;
    const api = this.#api;
    return api !== undefined && this.#getTracer(api) !== undefined;
  }

  /**
   * Runs `work` inside a span: a child of the Baton span it runs in, else of the caller's active
   * OpenTelemetry span. The span ends when `work` settles; a rejection marks it failed with the
   * error's name as `error.type` and is passed on.
   */
  span<T>(spec: SpanSpec, work: (scope: SpanScope) => Promise<T>): Promise<T> {
    const api = this.#api;
    const local = listeners.size > 0;
    if (api === undefined && !local) return work(NOOP_SCOPE);
    const tracer = api === undefined ? undefined : this.#getTracer(api);
    if (tracer === undefined && !local) return work(NOOP_SCOPE);
    let otelSpan: Span | undefined;
    let context: Context | undefined;
    const outer = this.#scope.getStore();
    if (api !== undefined && tracer !== undefined) {
      const parent = this.#parentContext(api, outer);
      const started = tracer.startSpan(
        spec.name,
        {
          kind: spec.kind === 'client' ? api.SpanKind.CLIENT : api.SpanKind.INTERNAL,
          attributes: definedOnly(spec.attributes),
        },
        parent,
      );
      // A span dropped by the sampler has a valid context: its children must know it.
      if (started.isRecording() || api.trace.isSpanContextValid(started.spanContext())) {
        otelSpan = started;
        context = api.trace.setSpan(parent, started);
      }
    }
    if (otelSpan === undefined && !local) return work(NOOP_SCOPE);
    const localSpan = local ? new LocalSpan(spec, outer?.local) : undefined;
    return this.#run(api, otelSpan, context, localSpan, work);
  }

  async #run<T>(
    api: OpenTelemetryApi | undefined,
    otelSpan: Span | undefined,
    context: Context | undefined,
    localSpan: LocalSpan | undefined,
    work: (scope: SpanScope) => Promise<T>,
  ): Promise<T> {
    const scope: SpanScope = {
      recording: otelSpan?.isRecording() === true || localSpan !== undefined,
      set(attributes) {
        otelSpan?.setAttributes(definedOnly(attributes));
        if (localSpan !== undefined) copyDefined(localSpan.attributes, attributes);
      },
      event(name, attributes) {
        otelSpan?.addEvent(name, definedOnly(attributes));
        localSpan?.events.push({ name, attributes: definedOnly(attributes) });
      },
      fail(errorType, message) {
        if (otelSpan !== undefined && api !== undefined) {
          otelSpan.setAttribute('error.type', errorType);
          otelSpan.setStatus({
            code: api.SpanStatusCode.ERROR,
            ...(message === undefined || !captureMessageContent() ? {} : { message }),
          });
        }
        if (localSpan !== undefined) {
          localSpan.attributes['error.type'] = errorType;
          localSpan.errorType = errorType;
        }
      },
      exception(error) {
        const thrown = exceptionOf(error, errorTypeOf(error), captureMessageContent());
        otelSpan?.recordException(thrown);
        localSpan?.events.push({
          name: 'exception',
          attributes: {
            'exception.type': thrown.name,
            ...(thrown.message === undefined ? {} : { 'exception.message': thrown.message }),
            ...(thrown.stack === undefined ? {} : { 'exception.stacktrace': thrown.stack }),
          },
        });
      },
    };
    const store: ActiveScope = { context, local: localSpan };
    try {
      return await this.#scope.run(store, () =>
        api !== undefined && context !== undefined
          ? api.context.with(context, () => work(scope))
          : work(scope),
      );
    } catch (error) {
      scope.fail(errorTypeOf(error), error instanceof Error ? error.message : String(error));
      throw error;
    } finally {
      otelSpan?.end();
      if (localSpan !== undefined) notify(localSpan.finish());
    }
  }

  /** The caller's active context when it holds a span; else the Baton span this runs in. */
  #parentContext(api: OpenTelemetryApi, outer: ActiveScope | undefined): Context {
    const active = api.context.active();
    if (outer?.context === undefined || api.trace.getSpan(active) !== undefined) return active;
    return outer.context;
  }

  /**
   * The registered SDK's tracer, or undefined when no SDK is registered (then nothing can record a
   * span, and `span()` skips it). The global API hands out a proxy provider, replaced when the API
   * is disabled; an SDK registers behind it as its delegate.
   */
  #getTracer(api: OpenTelemetryApi): Tracer | undefined {
    const provider = api.trace.getTracerProvider();
    if (provider === this.#provider && this.#tracer !== undefined) return this.#tracer;
    // The API's ProxyTracerProvider has getDelegateTracer(), which its type does not show.
    const delegate = fieldOf(provider, 'getDelegateTracer');
    const tracer: Tracer | undefined =
      typeof delegate === 'function'
        ? delegate.call(provider, 'baton', this.#version)
        : provider.getTracer('baton', this.#version);
    if (tracer !== undefined) {
      this.#provider = provider;
      this.#tracer = tracer;
    }
    return tracer;
  }
}

function definedOnly(attributes: SpanAttributes): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  copyDefined(out, attributes);
  return out;
}

function notify(span: FinishedSpan): void {
  for (const listener of listeners) {
    try {
      listener(span);
    } catch {
      // A subscriber's fault must never break a run.
    }
  }
}

/** `error.type` for a thrown value: the error's class name. */
export function errorTypeOf(error: unknown): string {
  // A thrown value is anything, even a Proxy whose traps throw: reading it must never throw.
  try {
    if (error instanceof Error && typeof error.name === 'string' && error.name !== '') {
      return error.name;
    }
  } catch {
    // Fall through to the generic type.
  }
  return '_OTHER';
}
