import { createRequire } from 'node:module';

import type * as OpenTelemetry from '@opentelemetry/api';

import { codeOf, fieldOf } from '../unknown-value.js';

/** The `@opentelemetry/api` module, when the application has it installed. */
export type OpenTelemetryApi = typeof OpenTelemetry;

/** Resolves and loads a module by name, as `require` does. */
export type ModuleLoader = (id: string) => unknown;

const moduleRequire = createRequire(import.meta.url);

/**
 * Loads `@opentelemetry/api`, an optional peer dependency, or returns `undefined` when it is not
 * installed. It is loaded with `require` rather than `import()`: synchronously, so that this module
 * needs no top-level await. The API keeps its registered providers on `globalThis`, so this copy
 * and an application's ESM import share them.
 * @throws Error when the package is installed but fails to load.
 */
export function loadOpenTelemetry(
  load: ModuleLoader = moduleRequire,
): OpenTelemetryApi | undefined {
  try {
    return load('@opentelemetry/api') as OpenTelemetryApi;
  } catch (error) {
    if (isNotFound(error, '@opentelemetry/api')) return undefined;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `@opentelemetry/api is installed but cannot be loaded: ${reason}. Reinstall it, or remove ` +
        'it to run without tracing.',
      { cause: error },
    );
  }
}

function isNotFound(error: unknown, id: string): boolean {
  return (
    error instanceof Error &&
    codeOf(error) === 'MODULE_NOT_FOUND' &&
    error.message.includes(`'${id}'`)
  );
}

/** This package's version, for `trace.getTracer('baton', version)`. */
export function batonVersion(load: ModuleLoader = moduleRequire): string {
  // src/observability and dist/observability both sit two levels below package.json.
  const version = fieldOf(load('../../package.json'), 'version');
  return typeof version === 'string' ? version : '0.0.0';
}
