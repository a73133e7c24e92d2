import { context, metrics, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  type HistogramMetricData,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** A finished span, reduced to what the tests compare. */
export interface SpanView {
  readonly name: string;
  readonly kind: 'internal' | 'client' | 'other';
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly attributes: Record<string, unknown>;
  readonly events: { name: string; attributes: Record<string, unknown> }[];
  readonly status: { code: 'unset' | 'ok' | 'error'; message?: string };
  /** The tracer that made it (`trace.getTracer(name, version)`). */
  readonly scope: { name: string; version: string | undefined };
  /** Start time as [seconds, nanoseconds]. */
  readonly start: readonly [number, number];
}

/** One data point of a histogram: its attributes, count and sum. */
export interface HistogramPoint {
  readonly attributes: Record<string, unknown>;
  readonly count: number;
  readonly sum: number;
}

/** What `collect()` read of one histogram. */
export interface HistogramView {
  readonly unit: string;
  readonly points: HistogramPoint[];
}

/** Reads metrics on demand (no timers). */
class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.DELTA });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** An in-memory OpenTelemetry SDK registered globally; `shutdown()` unregisters it. */
export interface TestTelemetry {
  /** Spans finished so far, in the order they ended. */
  spans(): SpanView[];
  /** The histograms recorded since the last `histograms()` or `clear()`, by name. */
  histograms(): Promise<Record<string, HistogramView>>;
  /** Forgets the spans finished and the metrics recorded so far. */
  clear(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Registers a tracer provider (in-memory exporter, simple processor), the AsyncLocalStorage
 * context manager and a meter provider, as an application would.
 */
export function installTestTelemetry(): TestTelemetry {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  if (
    !context.setGlobalContextManager(contextManager) ||
    !trace.setGlobalTracerProvider(tracerProvider) ||
    !metrics.setGlobalMeterProvider(meterProvider)
  ) {
    throw new Error('An OpenTelemetry provider is registered already: shut the other one down.');
  }
  return {
    spans: () => exporter.getFinishedSpans().map(view),
    async histograms() {
      const { resourceMetrics } = await reader.collect();
      const out: Record<string, HistogramView> = {};
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics as HistogramMetricData[]) {
          out[metric.descriptor.name] = {
            unit: metric.descriptor.unit,
            points: metric.dataPoints.map((p) => ({
              attributes: { ...p.attributes },
              count: p.value.count,
              sum: p.value.sum ?? 0,
            })),
          };
        }
      }
      return out;
    },
    async clear() {
      exporter.reset();
      await reader.collect();
    },
    async shutdown() {
      trace.disable();
      metrics.disable();
      context.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

function view(span: ReadableSpan): SpanView {
  const code =
    span.status.code === SpanStatusCode.ERROR
      ? 'error'
      : span.status.code === SpanStatusCode.OK
        ? 'ok'
        : 'unset';
  return {
    name: span.name,
    kind: span.kind === 0 ? 'internal' : span.kind === 2 ? 'client' : 'other',
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    attributes: { ...span.attributes },
    events: span.events.map((e) => ({ name: e.name, attributes: { ...e.attributes } })),
    status: span.status.message === undefined ? { code } : { code, message: span.status.message },
    scope: { name: span.instrumentationScope.name, version: span.instrumentationScope.version },
    start: [span.startTime[0], span.startTime[1]],
  };
}

/**
 * The spans as an outline, one line per span, children indented under their parent in the order
 * they started; spans whose parent is not among them are roots.
 */
export function outline(spans: readonly SpanView[]): string[] {
  const ids = new Set(spans.map((s) => s.spanId));
  const byStart = [...spans].sort((a, b) => a.start[0] - b.start[0] || a.start[1] - b.start[1]);
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const s of byStart) {
      const isChild =
        parent === undefined
          ? s.parentSpanId === undefined || !ids.has(s.parentSpanId)
          : s.parentSpanId === parent;
      if (!isChild) continue;
      lines.push(`${'  '.repeat(depth)}${s.name}`);
      walk(s.spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

/** The one span named `name` (throws when there is not exactly one). */
export function only(spans: readonly SpanView[], name: string): SpanView {
  const found = spans.filter((s) => s.name === name);
  if (found.length !== 1) {
    throw new Error(
      `Expected one span "${name}", found ${found.length}: ${outline(spans).join(' | ')}`,
    );
  }
  return found[0] as SpanView;
}
