import { createHash } from 'node:crypto';

import { CHAT_PAGE_SCRIPT } from './chat-page-script.js';
import { CHAT_PAGE_STYLE } from './chat-page-style.js';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The page's Content-Security-Policy, in a `<meta>` so that the page carries it wherever it is
 * served: only its own inline style and script (by their hashes) run, and it talks to its own
 * origin only.
 */
const POLICY =
  `default-src 'none'; script-src ${sha256(CHAT_PAGE_SCRIPT)}; style-src ${sha256(CHAT_PAGE_STYLE)}; ` +
  "connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'";

/**
 * The customer chat page of `baton serve --ui`: one self-contained HTML document (no CDN, no
 * framework, no build step), served at `/` without authentication. It holds no secret: the token
 * reaches its script through the URL fragment (`/#token=…`), which browsers never send to a
 * server, and every request the script makes carries it as `Authorization: Bearer`.
 */
export function chatPage(title = 'Support'): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style>${CHAT_PAGE_STYLE}</style>
</head>
<body>
<header>
  <h1>${escapeHtml(title)}</h1>
  <span id="agent" class="pill" hidden></span>
  <span class="grow"></span>
  <span id="status" class="pill">new</span>
  <button id="stop" type="button" hidden>Stop</button>
  <button id="restart" type="button">New conversation</button>
</header>
<main id="scroller">
  <div id="transcript" aria-live="polite"></div>
</main>
<form id="composer">
  <div class="inner">
    <label id="ask" for="reply">How can we help you today?</label>
    <div class="row">
      <input id="reply" autocomplete="off" placeholder="Type your message and press Enter">
      <button id="send" type="submit">Send</button>
    </div>
  </div>
</form>
<script>${CHAT_PAGE_SCRIPT}</script>
</body>
</html>
`;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}
