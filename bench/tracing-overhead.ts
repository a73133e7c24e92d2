// What tracing costs per model call in the relay scenario (issue 16), in one of three set-ups:
//   absent — @opentelemetry/api cannot be found (run with --require test/support/hide-opentelemetry.cjs)
//   api    — @opentelemetry/api installed, no SDK registered (the default for most applications)
//   sdk    — an SDK registered: tracer provider with an in-memory exporter and a simple processor,
//            the AsyncLocalStorage context manager and a meter provider
// µs per model call over a 50-turn session after warm-up sessions (p50, p90 of wall time, as
// relay-overhead.ts) and the process's CPU time per model call over the same turns.
// Usage: tracing-overhead.ts absent|api|sdk
import { createRequire } from 'node:module';

import { modelCalls, openRelay, percentile, userTurn } from './relay.js';

const mode = process.argv[2];
if (mode !== 'absent' && mode !== 'api' && mode !== 'sdk') {
  throw new Error(`Unknown mode ${JSON.stringify(mode)}. Use absent, api or sdk.`);
}

let resolvable = true;
try {
  createRequire(import.meta.url).resolve('@opentelemetry/api');
} catch {
  resolvable = false;
}
if (resolvable === (mode === 'absent')) {
  throw new Error(
    mode === 'absent'
      ? 'Mode "absent" needs --require test/support/hide-opentelemetry.cjs.'
      : '@opentelemetry/api is not installed.',
  );
}

let exported = (): number => 0;
if (mode === 'sdk') {
  const { context, metrics, trace } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } =
    await import('@opentelemetry/sdk-trace-base');
  const { MeterProvider } = await import('@opentelemetry/sdk-metrics');
  const exporter = new InMemorySpanExporter();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  metrics.setGlobalMeterProvider(new MeterProvider());
  exported = () => exporter.getFinishedSpans().length;
}

const framework = await openRelay('baton');
const warmUpEnd = performance.now() + 3000;
for (let i = 0; i < 3 && performance.now() < warmUpEnd; i++) {
  const warmUp = framework.session(`warm-up-${i}`);
  for (let t = 1; t <= 50; t++) await warmUp.run(userTurn(t));
}
const session = framework.session('overhead');
const perTurn: number[] = [];
const callsBefore = modelCalls.count;
const spansBefore = exported();
const cpuBefore = process.cpuUsage();
for (let t = 1; t <= 50; t++) {
  const start = process.hrtime.bigint();
  await session.run(userTurn(t));
  perTurn.push(Number(process.hrtime.bigint() - start) / 1000 / 4);
}
const cpu = process.cpuUsage(cpuBefore);
const calls = modelCalls.count - callsBefore;
const spans = exported() - spansBefore;
await framework.close();
if (calls !== 200) throw new Error(`The relay made ${calls} model calls in 50 turns, not 200.`);
const sorted = perTurn.slice(5).sort((a, b) => a - b);
console.log(
  JSON.stringify({
    bench: 'tracing-overhead',
    mode,
    perCallP50Us: percentile(sorted, 0.5),
    perCallP90Us: percentile(sorted, 0.9),
    // CPU time (user + system) per model call: less disturbed by other processes than wall time.
    cpuPerCallUs: (cpu.user + cpu.system) / calls,
    spansPerCall: spans / calls,
  }),
);
