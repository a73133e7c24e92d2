// What OpenAIChatClient checks about its endpoint: a base URL fit to use and to show in messages,
// and an answer that is a usable completion.
import { ConfigError } from '../errors.js';
import { redactSecrets, redactUrl, urlSecrets } from '../redact.js';
import { fieldOf, isRecord } from '../unknown-value.js';

/** Where a client sends its requests: its base URL, and the key it sends. */
export interface Endpoint {
  readonly baseURL: string;
  readonly apiKey?: string | null | undefined;
}

/** The client's key and the credentials in its base URL, for `redactSecrets`. */
export function endpointSecrets({ apiKey, baseURL }: Endpoint): (string | undefined)[] {
  return [apiKey ?? undefined, ...urlSecrets(baseURL)];
}

/** `Model "<model>" at <baseURL>`, with credentials redacted, to begin an error message. */
export function whereOf(model: string, endpoint: Endpoint): string {
  return `Model "${model}" at ${redactSecrets(redactUrl(endpoint.baseURL), endpointSecrets(endpoint))}`;
}

/**
 * Refuses a base URL that carries a user name or password, which fetch never sends from a URL; the
 * message shows the URL redacted. A query string (`?api-version=`, `?key=`) works: `openai` 7 puts
 * the request path before it, and errors show its values redacted.
 */
export function checkBaseURL(baseURL: string): void {
  const shown = redactSecrets(redactUrl(baseURL), urlSecrets(baseURL));
  let parsed: URL;
  try {
    parsed = new URL(baseURL);
  } catch {
    // Refused here: fetch's own "Invalid URL" error would carry the whole URL (as `input`).
    // URL cannot find the parts of a URL it cannot parse: hide whatever precedes an "@" and
    // everything from a "?" or "#" on.
    const hidden = shown
      .replace(/\/\/[^/?#]*@/, '//[redacted]@')
      .replace(/[?#].*$/s, '?[redacted]');
    throw new ConfigError(
      `OpenAIChatClient: \`baseURL\` ${hidden} is not an absolute URL. Give one such as ` +
        '"https://api.openai.com/v1" or "http://127.0.0.1:11434/v1".',
      { path: 'baseURL' },
    );
  }
  const way =
    'Pass the key as `apiKey`, or a configured openai client as `client` (defaultQuery, defaultHeaders).';
  if (parsed.username !== '' || parsed.password !== '') {
    throw new ConfigError(
      `OpenAIChatClient: \`baseURL\` ${shown} holds a user name or password, which fetch refuses in a URL. ${way}`,
      { path: 'baseURL' },
    );
  }
}

/** What makes `completion` unusable (no `choices`, no `message`), or undefined when nothing. */
export function completionFault(completion: unknown): string | undefined {
  const help = 'Check that baseURL points at an OpenAI-compatible Chat Completions API.';
  if (!isRecord(completion)) {
    return `answered with ${completion === null ? 'null' : `a ${typeof completion}`} instead of a completion object. ${help}`;
  }
  const { choices } = completion;
  if (!Array.isArray(choices)) {
    const fields = Object.keys(completion).join(', ') || 'none';
    return `answered with a completion without a \`choices\` list (its fields: ${fields}). ${help}`;
  }
  if (choices.length === 0) return 'answered with an empty `choices` list, so there is no answer.';
  const message = fieldOf(choices[0], 'message');
  if (typeof message !== 'object' || message === null) {
    return `answered with a choice without a \`message\`. ${help}`;
  }
  return undefined;
}
