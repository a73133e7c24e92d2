// The support desk (samples/support-desk.ts) traced with OpenTelemetry: every run, agent turn,
// model call and tool execution is a span with the GenAI semantic conventions (API.md §11).
// Spans are printed to the console as they end; with OTEL_EXPORTER_OTLP_ENDPOINT set they are
// also exported over OTLP/HTTP (JSON) to that collector (Jaeger, Tempo, an OpenTelemetry
// Collector…). Baton itself only uses @opentelemetry/api; the SDK below is the application's.
//
// Run it:  npx tsx samples/tracing.ts
//          OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 npx tsx samples/tracing.ts
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';

import { workflow } from './support-desk.js';

/** Prints one line per span: its name, duration and the attributes worth a glance. */
const consoleLines: SpanExporter = {
  export(spans: ReadableSpan[], done) {
    for (const span of spans) {
      const ms = span.duration[0] * 1e3 + span.duration[1] / 1e6;
      const shown = Object.entries(span.attributes)
        .filter(([key]) => key !== 'gen_ai.operation.name')
        .map(([key, value]) => `${key}=${JSON.stringify(value)}`);
      const events = span.events.map((e) => `${e.name}${JSON.stringify(e.attributes ?? {})}`);
      console.log(`[span] ${span.name} (${ms.toFixed(1)} ms) ${[...shown, ...events].join(' ')}`);
    }
    done({ code: 0 }); // ExportResultCode.SUCCESS
  },
  async shutdown() {},
};

const processors: SpanProcessor[] = [new SimpleSpanProcessor(consoleLines)];
const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
// The exporter reads OTEL_EXPORTER_OTLP_ENDPOINT itself and posts to <endpoint>/v1/traces.
if (endpoint) processors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
const provider = new BasicTracerProvider({ spanProcessors: processors });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(provider);

const session = workflow.session('sample');
for (const reply of ['I was charged twice for INV-1001', 'yes please', 'thanks, bye']) {
  console.log(`\nuser> ${reply}`);
  const result = await session.run(reply);
  const last = result.messages.at(-1);
  console.log(`[${result.status}${result.stopReason ? `: ${result.stopReason}` : ''}]`);
  if (last?.type === 'UserInputRequestedEvent') console.log(`${last.source}> ${last.content}`);
}

// Shutting down flushes the batch of spans still waiting for the OTLP exporter.
await provider.shutdown();
if (endpoint) console.log(`\nSpans exported to ${endpoint}/v1/traces.`);
