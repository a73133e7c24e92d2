// An in-memory OpenTelemetry SDK of our own for the independent tracing suite (no shared helpers).
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

class PullReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface Sdk {
  exporter: InMemorySpanExporter;
  reader: PullReader;
  spans(): ReadableSpan[];
  histograms(): Promise<Map<string, HistogramMetricData>>;
  stop(): Promise<void>;
}

export function startSdk(): Sdk {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const reader = new PullReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const cm = new AsyncLocalStorageContextManager().enable();
  if (
    !context.setGlobalContextManager(cm) ||
    !trace.setGlobalTracerProvider(tracerProvider) ||
    !metrics.setGlobalMeterProvider(meterProvider)
  ) {
    throw new Error('an OpenTelemetry global was already registered');
  }
  return {
    exporter,
    reader,
    spans: () => exporter.getFinishedSpans(),
    async histograms() {
      const { resourceMetrics } = await reader.collect();
      const out = new Map<string, HistogramMetricData>();
      for (const sm of resourceMetrics.scopeMetrics) {
        for (const m of sm.metrics) out.set(m.descriptor.name, m as HistogramMetricData);
      }
      return out;
    },
    async stop() {
      trace.disable();
      metrics.disable();
      context.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

export const ERROR = SpanStatusCode.ERROR;

export function parentId(s: ReadableSpan): string | undefined {
  return s.parentSpanContext?.spanId;
}

export function named(spans: readonly ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((s) => s.name === name);
}

export function one(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = named(spans, name);
  if (found.length !== 1) {
    throw new Error(
      `expected one "${name}", got ${found.length}: ${spans.map((s) => s.name).join(', ')}`,
    );
  }
  return found[0] as ReadableSpan;
}

/** Every attribute and event attribute of every span, as one JSON text. */
export function everything(spans: readonly ReadableSpan[]): string {
  return JSON.stringify(
    spans.map((s) => ({
      name: s.name,
      attributes: s.attributes,
      events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })),
      status: s.status,
    })),
  );
}
