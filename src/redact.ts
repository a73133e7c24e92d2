/** What a redacted secret is replaced with. */
export const REDACTED = '[redacted]';

/** `Bearer <token>` in any case, as an Authorization header or a gateway's echo of one. */
const BEARER = /\b(bearer)\s+(?!\[redacted\])[^\s"'`,;)\]}]+/gi;
/** The user name and password of a URL in text (`https://user:password@host`). */
const USERINFO = /\b([a-z][a-z\d+.-]*:\/\/)[^\s/?#@]+@/gi;
/** Key shapes of OpenAI-style providers (`sk-...`, `sk-proj-...`), whoever's key they are. */
const KEY_SHAPE = /\bsk-[A-Za-z0-9_-]{16,}/g;

/**
 * `text` with credentials replaced by `[redacted]`: each of `secrets` (a client's own API key),
 * every `Bearer …` token, every `sk-…` key and the user name and password of every URL. Used wherever Baton builds or forwards error text
 * (model and agent failures, tool errors, devtools events), because some gateways repeat the
 * request's Authorization header in their error bodies.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    // Very short values would redact ordinary words; no real key is that short.
    if (secret !== undefined && secret.length >= 8) out = out.split(secret).join(REDACTED);
  }
  return out
    .replace(BEARER, `$1 ${REDACTED}`)
    .replace(KEY_SHAPE, REDACTED)
    .replace(USERINFO, `$1${REDACTED}@`);
}

/**
 * `url` fit to show in a message: a user name and password become one `[redacted]@`, and every
 * query value `[redacted]` (`https://[redacted]@host/v1?key=[redacted]`). Text that is not a URL
 * is returned as it is.
 */
export function redactUrl(url: string): string {
  const parsed = parseUrl(url);
  if (parsed === undefined) return url;
  const userinfo = parsed.username !== '' || parsed.password !== '' ? `${REDACTED}@` : '';
  const query = [...parsed.searchParams.keys()].map((key) => `${key}=${REDACTED}`).join('&');
  const authority = parsed.host === '' ? '' : `//${userinfo}${parsed.host}`;
  return `${parsed.protocol}${authority}${parsed.pathname}${query === '' ? '' : `?${query}`}`;
}

/**
 * The credentials a URL carries (its user name, password and query values, as written and
 * decoded), for `redactSecrets` of text that repeats them, such as a server's echo of the path.
 */
export function urlSecrets(url: string): string[] {
  const parsed = parseUrl(url);
  if (parsed === undefined) return [];
  const values = parsed.search
    .slice(1)
    .split('&')
    .map((pair) => pair.slice(pair.indexOf('=') + 1));
  const written = [parsed.username, parsed.password, ...values].filter((part) => part !== '');
  return [...new Set(written.flatMap((part) => [part, safeDecode(part)]))];
}

// `URL.parse` needs Node 22; Baton supports Node 20.
function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}
