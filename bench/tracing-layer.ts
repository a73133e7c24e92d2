// The tracing layer alone (src/observability/tracing.ts), in one process: nanoseconds per traced
// operation around an async no-op, with @opentelemetry/api absent (the layer built without it) and
// installed without an SDK, interleaved over rounds so that load from other processes falls on
// both alike; then with an SDK registered (simple processor into an exporter that drops the spans,
// AsyncLocalStorage context manager). A relay model call opens 2.25 such spans.
import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

import { Tracing } from '../src/observability/tracing.js';
import { median } from './relay.js';

const spec = {
  name: 'chat m',
  operation: 'chat' as const,
  kind: 'client' as const,
  attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'p' },
};
const work = async () => 1;
const N = 20_000;

async function nsPerSpan(tracing: Tracing | undefined): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) {
    if (tracing === undefined) await work();
    else await tracing.span(spec, work);
  }
  return Number(process.hrtime.bigint() - start) / N;
}

// Exports by dropping: hundreds of thousands of kept spans would measure the garbage collector.
const discard: SpanExporter = {
  export: (_spans, done) => done({ code: 0 }),
  shutdown: async () => {},
};

const absent = new Tracing(undefined, '0.0.0');
const installed = new Tracing(api, '0.0.0');
const rows: Record<'bare' | 'absent' | 'api' | 'sdk', number[]> = {
  bare: [],
  absent: [],
  api: [],
  sdk: [],
};
for (let round = 0; round < 3; round++) await nsPerSpan(absent); // warm-up
for (let round = 0; round < 15; round++) {
  rows.bare.push(await nsPerSpan(undefined));
  rows.absent.push(await nsPerSpan(absent));
  rows.api.push(await nsPerSpan(installed));
}
api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
api.trace.setGlobalTracerProvider(
  new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(discard)],
  }),
);
for (let round = 0; round < 3; round++) rows.sdk.push(await nsPerSpan(installed));
for (let round = 0; round < 15; round++) rows.sdk.push(await nsPerSpan(installed));
console.log(
  JSON.stringify({
    bench: 'tracing-layer',
    bareNs: median(rows.bare),
    absentNs: median(rows.absent),
    apiNs: median(rows.api),
    sdkNs: median(rows.sdk.slice(3)),
  }),
);
