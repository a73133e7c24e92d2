/** What a redacted secret is replaced with. */
export const REDACTED = '[redacted]';

/** `Bearer <token>` in any case, as an Authorization header or a gateway's echo of one. */
const BEARER = /\b(bearer)\s+(?!\[redacted\])[^\s"'`,;)\]}]+/gi;
/** Key shapes of OpenAI-style providers (`sk-...`, `sk-proj-...`), whoever's key they are. */
const KEY_SHAPE = /\bsk-[A-Za-z0-9_-]{16,}/g;

/**
 * `text` with credentials replaced by `[redacted]`: each of `secrets` (a client's own API key),
 * every `Bearer …` token and every `sk-…` key. Used wherever Baton builds or forwards error text
 * (model and agent failures, tool errors, devtools events), because some gateways repeat the
 * request's Authorization header in their error bodies.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    // Very short values would redact ordinary words; no real key is that short.
    if (secret !== undefined && secret.length >= 8) out = out.split(secret).join(REDACTED);
  }
  return out.replace(BEARER, `$1 ${REDACTED}`).replace(KEY_SHAPE, REDACTED);
}
