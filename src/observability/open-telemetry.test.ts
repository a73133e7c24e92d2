import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { batonVersion, loadOpenTelemetry } from './open-telemetry.js';

const notFound = (id: string) =>
  Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });

describe('loadOpenTelemetry()', () => {
  it('returns the installed API', () => {
    const api = loadOpenTelemetry();
    expect(typeof api?.trace.getTracer).toBe('function');
  });

  it('returns undefined when the package is not installed', () => {
    expect(
      loadOpenTelemetry(() => {
        throw notFound('@opentelemetry/api');
      }),
    ).toBeUndefined();
  });

  it('says so when the package is installed but fails to load', () => {
    expect(() =>
      loadOpenTelemetry(() => {
        throw notFound('./build/src/index.js');
      }),
    ).toThrowErrorMatchingInlineSnapshot(
      `[Error: @opentelemetry/api is installed but cannot be loaded: Cannot find module './build/src/index.js'. Reinstall it, or remove it to run without tracing.]`,
    );
  });
});

describe('batonVersion()', () => {
  it("is the package's version", () => {
    const manifest = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    );
    expect(batonVersion()).toBe(manifest.version);
    expect(batonVersion(() => ({ version: '9.9.9' }))).toBe('9.9.9');
    expect(batonVersion(() => ({}))).toBe('0.0.0');
  });
});
