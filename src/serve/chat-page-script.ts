import { CHAT_RENDER_SCRIPT } from './chat-page-render-script.js';
import { CHAT_STREAM_SCRIPT } from './chat-page-stream-script.js';

/**
 * The chat page's script, plain browser JavaScript (no build step, no framework), written without
 * template literals: it lives inside one. The bearer token comes from the URL fragment
 * (`#token=…`, never sent to a server), is kept in `sessionStorage` and taken off the address bar.
 * The conversation (session id, the messages shown, the text being streamed and the last event
 * id) is kept in `sessionStorage` after every event, so a reload shows the same transcript and
 * follows the run from where it was. The transcript is in `chat-page-render-script.ts`, the
 * requests and the event stream in `chat-page-stream-script.ts`.
 */
export const CHAT_PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var KEY = 'baton.chat';
  var TOKEN_KEY = 'baton.token';
  var token = '';
  var chat = fresh();
  var ui = { busy: false, following: false, drafts: {}, calls: {}, generation: 0 };

  function $(id) { return document.getElementById(id); }

  function fresh() {
    return { sessionId: null, lastEventId: null, messages: [], drafts: {}, status: 'new', pending: null, agent: null };
  }

  function save() {
    try { sessionStorage.setItem(KEY, JSON.stringify(chat)); } catch (e) { /* full or disabled: the page still works */ }
  }

  function load() {
    try {
      var kept = JSON.parse(sessionStorage.getItem(KEY) || 'null');
      if (kept && typeof kept === 'object' && Array.isArray(kept.messages)) chat = kept;
    } catch (e) { chat = fresh(); }
  }

  function forget() {
    chat = fresh();
    ui.generation++;
    ui.drafts = {};
    ui.calls = {};
    $('transcript').textContent = '';
    save();
  }

  function readToken() {
    var match = /(?:^#|&)token=([^&]*)/.exec(location.hash);
    if (match) {
      token = decodeURIComponent(match[1]);
      try { sessionStorage.setItem(TOKEN_KEY, token); } catch (e) { /* kept in memory only */ }
      history.replaceState(null, '', location.pathname + location.search);
    } else {
      try { token = sessionStorage.getItem(TOKEN_KEY) || ''; } catch (e) { token = ''; }
    }
  }

${CHAT_RENDER_SCRIPT}
${CHAT_STREAM_SCRIPT}

  function applyMessage(m) {
    if (m.type === 'ModelClientStreamingChunkEvent') {
      chat.drafts[m.source] = (chat.drafts[m.source] || '') + m.content;
      chat.agent = m.source;
      renderDraft(m.source);
      return;
    }
    dropDraft(m.source);
    if (m.type === 'HandoffMessage') chat.agent = m.target;
    else if (m.source !== 'user' && (m.type === 'TextMessage' || m.type === 'ToolApprovalRequestEvent')) chat.agent = m.source;
    chat.messages.push(m);
    append(renderMessage(m));
  }

  function applyResult(result) {
    chat.status = result.status;
    chat.pending = result.pendingRequest || null;
    var ended = { type: 'RunEnded', status: result.status, stopReason: result.stopReason };
    if (result.status !== 'awaiting_input') {
      chat.messages.push(ended);
      append(renderMessage(ended));
    }
  }

  var LABELS = { new: 'new', running: 'answering…', awaiting_input: 'your turn', terminated: 'ended', cancelled: 'stopped', idle: 'ready' };

  function refresh() {
    var running = chat.status === 'running';
    var pill = $('status');
    pill.textContent = LABELS[chat.status] || chat.status;
    pill.className = 'pill ' + chat.status;
    var agent = $('agent');
    agent.hidden = !chat.agent;
    agent.textContent = chat.agent ? 'with ' + chat.agent : '';
    $('stop').hidden = !running;
    var locked = ui.busy || ui.following || running;
    $('send').disabled = locked;
    var open = chat.status === 'awaiting_input' && !locked;
    Object.keys(ui.calls).forEach(function (id) {
      var row = ui.calls[id];
      var enabled = open && !row.hasAttribute('data-decided');
      Array.prototype.slice.call(row.querySelectorAll('button')).forEach(function (b) { b.disabled = !enabled; });
    });
    var form = $('composer');
    var pending = chat.pending;
    form.classList.toggle('waiting', chat.status === 'awaiting_input');
    var ask = $('ask');
    if (running) ask.textContent = (chat.agent || 'The desk') + ' is answering…';
    else if (pending && pending.kind === 'approval') ask.textContent = pending.agent + ' needs your approval above (or write a message to decline).';
    else if (pending) ask.textContent = pending.agent + ' is waiting for your answer.';
    else if (chat.status === 'terminated') ask.textContent = 'The conversation has ended. Write again to go on.';
    else ask.textContent = 'How can we help you today?';
  }

  function decide(callId, approve) {
    run({ decisions: [{ callId: callId, approve: approve }] });
  }

  function rebuild() {
    $('transcript').textContent = '';
    ui.drafts = {};
    ui.calls = {};
    chat.messages.forEach(function (m) { append(renderMessage(m)); });
    Object.keys(chat.drafts).forEach(renderDraft);
  }

  $('composer').addEventListener('submit', function (event) {
    event.preventDefault();
    var text = $('reply').value.trim();
    if (!text || $('send').disabled) return;
    $('reply').value = '';
    run({ input: text });
  });
  $('stop').addEventListener('click', stopRun);
  $('restart').addEventListener('click', function () {
    forget();
    refresh();
    $('reply').focus();
  });

  // Framed by another page, the buttons could be clicked for the customer: the page does nothing.
  if (window.top !== window.self) {
    document.body.textContent = 'This page does not work inside a frame.';
    return;
  }
  readToken();
  load();
  rebuild();
  refresh();
  reconnect();
})();
`;
