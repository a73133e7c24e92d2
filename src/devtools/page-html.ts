import { PAGE_SCRIPT } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';

/**
 * The devtools page: one self-contained HTML document (no CDN, no framework); its style and
 * script carry `nonce` so the server's Content-Security-Policy can refuse every other script.
 */
export function devtoolsPage(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>Baton devtools</title>
<style nonce="${nonce}">${PAGE_STYLE}</style>
</head>
<body>
<header>
  <h1>Baton devtools <span id="workflow-name"></span></h1>
  <span id="connection" class="pill">connecting…</span>
</header>
<main>
  <section id="left">
    <div class="panel" id="graph-panel">
      <h2>Workflow graph</h2>
      <div id="graph-box"><svg id="graph" role="img" aria-label="workflow graph"></svg></div>
      <p id="graph-note" class="note"></p>
    </div>
    <div class="panel" id="sessions-panel">
      <h2>Sessions</h2>
      <div class="row">
        <button id="new-session" type="button">New session</button>
        <form id="open-form" class="row grow">
          <input id="open-id" placeholder="open a session by id" autocomplete="off">
          <button type="submit">Open</button>
        </form>
      </div>
      <p id="persistence" class="note"></p>
      <ul id="sessions"></ul>
      <h3>Step log <span id="steps-of" class="note"></span></h3>
      <p id="steps-note" class="note"></p>
      <pre id="session-state" class="note"></pre>
      <ol id="steps"></ol>
    </div>
  </section>
  <section id="right">
    <div class="panel" id="session-head">
      <div class="row">
        <h2>Session <code id="session-id">—</code></h2>
        <span id="status" class="pill">idle</span>
        <span class="grow"></span>
        <button id="save-test" type="button" title="Write a Vitest test that replays this session">Save as test</button>
        <button id="stop" type="button" disabled>Stop</button>
      </div>
      <div class="row small">
        <span>Tokens: <b id="usage-total">0</b></span>
        <span id="usage-split" class="note"></span>
        <span id="stop-reason" class="note"></span>
      </div>
      <div id="conditions"></div>
    </div>
    <div class="panel" id="timeline-panel">
      <h2>Timeline</h2>
      <div id="timeline"></div>
    </div>
    <div class="panel grow-panel" id="transcript-panel">
      <h2>Transcript</h2>
      <div id="transcript" aria-live="polite"></div>
    </div>
    <form id="reply-form" class="panel">
      <label id="ask" for="reply">Send a message to start the session.</label>
      <div id="approvals"></div>
      <div class="row">
        <input id="reply" autocomplete="off" placeholder="Type a message and press Enter">
        <button id="send" type="submit" disabled>Send</button>
      </div>
    </form>
  </section>
</main>
<script nonce="${nonce}">${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
