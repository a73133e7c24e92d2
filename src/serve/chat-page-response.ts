import { chatPageHtml } from './chat-page-html.js';

/**
 * The answer to `GET /` when `serve()` serves the customer chat page: the page with a fresh
 * nonce, and a Content-Security-Policy that lets only its own inline style and script run and
 * lets it talk to its own origin only (`connect-src 'self'`). The page holds no secret, so it
 * is served without authentication; every request it makes carries the token.
 */
export function chatPageResponse(options: { title?: string } = {}): Response {
  // Web Crypto, not node:crypto: the handler also runs on Deno, Bun and edge runtimes.
  const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
  return new Response(chatPageHtml(nonce, options.title), {
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'content-security-policy':
        `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; ` +
        "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    },
  });
}
