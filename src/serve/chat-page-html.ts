import { CHAT_PAGE_SCRIPT } from './chat-page-script.js';
import { CHAT_PAGE_STYLE } from './chat-page-style.js';

/**
 * The customer chat page of `baton serve --ui`: one self-contained HTML document (no CDN, no
 * framework, no build step). It holds no secret: the token reaches the script through the URL
 * fragment, which browsers never send to a server. Its style and script carry `nonce`, so the
 * Content-Security-Policy of `chatPageResponse()` refuses every other script.
 */
export function chatPageHtml(nonce: string, title = 'Support'): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${CHAT_PAGE_STYLE}</style>
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
<script nonce="${nonce}">${CHAT_PAGE_SCRIPT}</script>
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
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}
