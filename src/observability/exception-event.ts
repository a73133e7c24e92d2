import { redactSecrets } from '../redact.js';
import { thrownText } from '../value-text.js';

/**
 * A thrown value as OpenTelemetry's `recordException` takes it: a copy with `name` (its
 * `error.type`), the message and the stack, credentials redacted (no attribute ever holds an API
 * key). Without `content` (message content capture off) the message, and the stack's first lines
 * that repeat it, are left out: a tool's error text quotes its arguments, which the model wrote.
 */
export function exceptionOf(
  error: unknown,
  name: string,
  content: boolean,
): { name: string; message?: string; stack?: string } {
  let stack: unknown;
  try {
    stack = error instanceof Error ? error.stack : undefined;
  } catch {
    // A Proxy's trap may throw: no stack then.
  }
  if (!content) {
    const frames = typeof stack === 'string' ? stackFrames(stack) : '';
    return frames === '' ? { name } : { name, stack: `${name}\n${frames}` };
  }
  const message = redactSecrets(thrownText(error));
  return typeof stack === 'string'
    ? { name, message, stack: redactSecrets(stack) }
    : { name, message };
}

/** The `    at …` lines of a V8 stack: code locations, never the error's text. */
const stackFrames = (stack: string): string =>
  stack
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .join('\n');
