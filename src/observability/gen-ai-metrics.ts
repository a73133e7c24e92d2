import type { Histogram, MeterProvider } from '@opentelemetry/api';

import type { OpenTelemetryApi } from './open-telemetry.js';
import type { AttributeValue } from './tracing.js';

// Bucket boundaries the GenAI semantic conventions advise for these two histograms.
const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];
const DURATION_BUCKETS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/**
 * `gen_ai.client.token.usage` and `gen_ai.client.operation.duration` on the global meter. The
 * instruments are made again whenever the registered meter provider changes (the metrics API has
 * no proxy: an instrument made before an SDK is registered would stay a no-op).
 */
export class GenAIMetrics {
  readonly #api: OpenTelemetryApi;
  readonly #version: string;
  #provider: MeterProvider | undefined;
  #tokens: Histogram | undefined;
  #duration: Histogram | undefined;
  #noop = true;

  constructor(api: OpenTelemetryApi, version: string) {
    this.#api = api;
    this.#version = version;
  }

  /** False while no SDK is registered (the API's no-op meter): then there is nothing to measure. */
  enabled(): boolean {
    const provider = this.#api.metrics.getMeterProvider();
    if (provider !== this.#provider) {
      const meter = provider.getMeter('baton', this.#version);
      this.#noop =
        Object.getPrototypeOf(meter) === Object.getPrototypeOf(this.#api.createNoopMeter());
      this.#tokens = meter.createHistogram('gen_ai.client.token.usage', {
        description: 'Number of input and output tokens used.',
        unit: '{token}',
        advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
      });
      this.#duration = meter.createHistogram('gen_ai.client.operation.duration', {
        description: 'GenAI operation duration.',
        unit: 's',
        advice: { explicitBucketBoundaries: DURATION_BUCKETS },
      });
      this.#provider = provider;
    }
    return !this.#noop;
  }

  /** Records one model call: its duration in seconds and, when it answered, its tokens. */
  recordChat(
    attributes: Record<string, AttributeValue>,
    seconds: number,
    usage: { input: number; output: number } | undefined,
  ): void {
    if (!this.enabled() || this.#tokens === undefined || this.#duration === undefined) return;
    this.#duration.record(seconds, attributes);
    if (usage !== undefined) {
      this.#tokens.record(usage.input, { ...attributes, 'gen_ai.token.type': 'input' });
      this.#tokens.record(usage.output, { ...attributes, 'gen_ai.token.type': 'output' });
    }
  }
}
