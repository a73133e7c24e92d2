import { redactSecrets } from '../redact.js';
import { thrownText } from '../value-text.js';

/**
 * A thrown value as OpenTelemetry's `recordException` takes it: a copy with `name` (its
 * `error.type`), the message and the stack, credentials redacted (no attribute ever holds an API
 * key).
 */
export function exceptionOf(
  error: unknown,
  name: string,
): { name: string; message: string; stack?: string } {
  const message = redactSecrets(thrownText(error));
  let stack: unknown;
  try {
    stack = error instanceof Error ? error.stack : undefined;
  } catch {
    // A Proxy's trap may throw: no stack then.
  }
  return typeof stack === 'string'
    ? { name, message, stack: redactSecrets(stack) }
    : { name, message };
}
