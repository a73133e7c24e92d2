// What AiSdkChatClient throws when a provider fails: a new error that names the provider and the
// model, with every credential it can know of redacted, and nothing of the provider's error kept
// but its redacted message, name and HTTP status. AI SDK errors carry the request body, the
// response headers and body and their own causes; any of them may repeat the key.
import { redactSecrets, redactUrl, urlSecrets } from '../redact.js';
import { isRecord } from '../unknown-value.js';

/** Environment variables that hold credentials by their name (`ANTHROPIC_API_KEY`, `…_TOKEN`). */
const SECRET_NAME = /(?:API_?KEY|TOKEN|SECRET|PASSWORD|ACCESS_KEY(?:_ID)?)$/i;

/**
 * The values to redact from a provider's error: `given` (keys handed to a provider in code), the
 * values of the environment's credential variables (where AI SDK providers read their keys) and
 * the credentials in the URL the request went to.
 */
export function secretsOf(given: readonly string[], url: unknown): string[] {
  const secrets = [...given];
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && SECRET_NAME.test(name)) secrets.push(value);
  }
  if (typeof url === 'string') secrets.push(...urlSecrets(url));
  // Longest first, so that a key that contains another is replaced whole.
  return secrets.sort((a, b) => b.length - a.length);
}

/** Header names whose values are credentials (`Authorization`, `x-api-key`, `api-key`, …). */
const CREDENTIAL_HEADER = /auth|key|token|secret|cookie|signature|session/i;

/**
 * The credentials an AI SDK provider's model was configured with, however they were given (in
 * code, from the environment): the values of its credential headers (and the token after a
 * scheme such as `Bearer`), and the user name, password and query values of its base URL. AI SDK
 * providers keep them on the model's `config` (`headers()`, `baseURL`, `url()`); a model that
 * keeps nothing there gives none. Read only when a request failed.
 */
export async function configuredSecrets(model: unknown): Promise<string[]> {
  const config = isRecord(model) ? model.config : undefined;
  if (!isRecord(config)) return [];
  const secrets: string[] = [];
  try {
    const headers: unknown =
      typeof config.headers === 'function' ? await config.headers() : config.headers;
    for (const [name, value] of Object.entries(isRecord(headers) ? headers : {})) {
      if (typeof value !== 'string' || !CREDENTIAL_HEADER.test(name)) continue;
      secrets.push(value);
      const space = value.indexOf(' ');
      if (space > 0) secrets.push(value.slice(space + 1).trim());
    }
  } catch {
    // No key configured (the provider throws when it finds none): nothing to redact.
  }
  const modelId = isRecord(model) ? model.modelId : undefined;
  let url: unknown;
  try {
    url = typeof config.url === 'function' ? config.url({ path: '', modelId }) : undefined;
  } catch {
    url = undefined;
  }
  for (const base of [config.baseURL, url]) {
    if (typeof base === 'string') secrets.push(...urlSecrets(base));
  }
  return secrets;
}

/**
 * `error` as Baton reports it: `Model "<model>" of provider "<provider>" failed: <message>`, the
 * message redacted, with HTTP status when there is one. The cause is a plain error with the
 * redacted message, the original error's name and `status`: never the original error.
 */
export function providerFailure(
  error: unknown,
  where: { provider: string; model: string },
  given: readonly string[],
): Error {
  const fields: Record<string, unknown> = isRecord(error) ? error : {};
  const secrets = secretsOf(given, fields.url);
  const raw = error instanceof Error ? error.message : String(error);
  const detail = redactSecrets(raw, secrets);
  const status = typeof fields.statusCode === 'number' ? fields.statusCode : undefined;
  const name = error instanceof Error ? error.name : 'Error';
  const cause = Object.assign(new Error(detail), {
    name,
    ...(status === undefined ? {} : { status }),
  });
  const url =
    typeof fields.url === 'string' ? ` at ${redactSecrets(redactUrl(fields.url), secrets)}` : '';
  const code = status === undefined ? '' : ` (HTTP ${status})`;
  return new Error(
    `Model "${where.model}" of provider "${where.provider}"${url} failed${code}: ${detail}`,
    { cause },
  );
}
