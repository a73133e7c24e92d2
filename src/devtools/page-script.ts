import { GRAPH_SCRIPT } from './page-graph-script.js';
import { TIMELINE_SCRIPT } from './page-timeline-script.js';
import { SESSIONS_SCRIPT } from './page-sessions-script.js';
import { TRANSCRIPT_SCRIPT } from './page-transcript-script.js';

/**
 * The devtools page's script, plain browser JavaScript (no build step, no framework). It reads
 * the token from its own URL, sends it on every request, follows `/api/events` (server-sent
 * events) and builds every element with `textContent`, never `innerHTML`, so message text cannot
 * inject markup. Written without template literals: it lives inside one. The graph's part is in
 * `page-graph-script.ts`, the transcript's in `page-transcript-script.ts`, the waterfall's in
 * `page-timeline-script.ts`.
 */
export const PAGE_SCRIPT = String.raw`
(function () {
  'use strict';
  var token = new URLSearchParams(location.search).get('token') || '';
  var SVG = 'http://www.w3.org/2000/svg';
  var ui = {
    workflow: null,
    graph: null,
    sessionId: null,
    status: 'idle',
    active: null,
    messages: [],
    drafts: {},
    asking: null,
    handoffFrom: null,
    loading: 0,
    spans: [],
  };

  function $(id) { return document.getElementById(id); }

  function api(method, path, body) {
    var init = { method: method, headers: { 'x-baton-token': token } };
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (json) {
        if (!response.ok) throw new Error(json.error || response.statusText);
        return json;
      });
    });
  }

  function h(tag, className, children) {
    var el = document.createElement(tag);
    if (className) el.className = className;
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      el.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    });
    return el;
  }

  function s(tag, attrs) {
    var el = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) { el.setAttribute(k, String(attrs[k])); });
    return el;
  }

  function fmt(n) { return Number(n || 0).toLocaleString('en-US'); }

  function showError(text) {
    var line = h('div', 'divider failure', [text]);
    $('transcript').appendChild(line);
    line.scrollIntoView({ block: 'end' });
  }

${GRAPH_SCRIPT}
${TIMELINE_SCRIPT}
${TRANSCRIPT_SCRIPT}
${SESSIONS_SCRIPT}
  // ---- conditions ----------------------------------------------------------------------------

  function renderProgress(progress) {
    var box = $('conditions');
    while (box.firstChild) box.removeChild(box.firstChild);
    if (!progress) {
      box.appendChild(h('p', 'note', [ui.workflow && ui.workflow.conditionNote || '']));
      return;
    }
    box.appendChild(h('div', 'note', ['Termination condition']));
    box.appendChild(progressNode(progress));
  }

  function progressNode(p) {
    if (p.children) {
      var group = h('div', 'cond-group', p.children.map(progressNode));
      return h('div', null, [h('div', 'cond' + (p.fired ? ' fired' : ''), [h('span', 'label', [p.label + (p.fired ? ' (fired)' : '')])]), group]);
    }
    var bar = null;
    if (typeof p.ratio === 'number') {
      var fill = h('i');
      fill.style.width = Math.round(p.ratio * 100) + '%';
      bar = h('span', 'bar', [fill]);
    }
    var row = h('div', 'cond' + (p.fired ? ' fired' : ''), [bar, h('span', 'label', [p.label + (p.fired ? ' (fired)' : '')])]);
    row.setAttribute('data-type', p.type);
    return row;
  }

  // ---- session state -------------------------------------------------------------------------

  function setStatus(status, detail) {
    ui.status = status;
    var pill = $('status');
    pill.textContent = status.replace('_', ' ');
    pill.className = 'pill ' + status;
    $('stop').disabled = status !== 'running';
    $('save-test').disabled = status === 'running';
    $('send').disabled = status === 'running';
    var form = $('reply-form');
    var waiting = status === 'awaiting_input' || (status === 'terminated' && ui.handoffFrom);
    form.classList.toggle('waiting', Boolean(waiting));
    var ask = $('ask');
    var deciding = detail && (detail.kind === 'approval' || detail.kind === 'in_doubt');
    renderApprovals(status === 'awaiting_input' && deciding ? detail : null);
    if (status === 'running') ask.textContent = 'The session is running…';
    else if (status === 'awaiting_input' && detail && detail.kind === 'approval')
      ask.textContent = detail.agent + ' asks you to approve ' + detail.calls.length +
        (detail.calls.length === 1 ? ' call' : ' calls') + ' (or send a message, which rejects them):';
    else if (status === 'awaiting_input' && detail && detail.kind === 'in_doubt')
      ask.textContent = detail.agent + ': ' + detail.calls.length +
        (detail.calls.length === 1 ? ' call' : ' calls') + ' may or may not have completed. Run again, skip, or give the result:';
    else if (status === 'awaiting_input' && detail) ask.textContent = detail.agent + ' asks: ' + detail.prompt;
    else if (waiting && ui.handoffFrom) ask.textContent = ui.handoffFrom + ' handed off to you: your answer goes back to ' + ui.handoffFrom + '.';
    else if (status === 'terminated') ask.textContent = 'The session stopped. Send a message to continue it.';
    else if (status === 'cancelled') ask.textContent = 'Stopped. Send a message to continue, or start a new session.';
    else ask.textContent = 'Send a message to start the session.';
  }

  /**
   * One row per call awaiting approval, with its arguments and Approve / Reject buttons; a call in
   * doubt has Run again / Skip / Give result.
   */
  function renderApprovals(request) {
    var box = $('approvals');
    box.textContent = '';
    if (!request) return;
    var doubt = request.kind === 'in_doubt';
    request.calls.forEach(function (c) {
      var send = function (decision) {
        box.querySelectorAll('button').forEach(function (b) { b.disabled = true; });
        api('POST', '/api/sessions/' + encodeURIComponent(ui.sessionId) + '/run',
          { decisions: [decision] })
          .catch(function (err) { showError(err.message); });
      };
      var button = function (cls, label, decide) {
        var b = h('button', cls, [label]);
        b.type = 'button';
        b.setAttribute('data-call', c.id);
        b.addEventListener('click', decide);
        return b;
      };
      var row = [
        h('pre', null, [c.name + '(' + pretty(c.arguments) + ')']),
        button('approve', doubt ? 'Run again' : 'Approve', function () { send({ callId: c.id, approved: true }); }),
        button('reject', doubt ? 'Skip' : 'Reject', function () { send({ callId: c.id, approved: false }); }),
      ];
      if (doubt) {
        row.push(button('resolve', 'Give result', function () {
          var result = window.prompt('The result of ' + c.name + ':');
          if (result !== null) send({ callId: c.id, approved: true, result: result });
        }));
      }
      box.appendChild(h('div', 'approval', row));
    });
  }

  function applySnapshot(snap) {
    ui.sessionId = snap.id;
    ui.messages = [];
    ui.drafts = {};
    ui.handoffFrom = snap.handoffFrom || null;
    $('session-id').textContent = snap.id;
    var box = $('transcript');
    while (box.firstChild) box.removeChild(box.firstChild);
    snap.messages.forEach(appendMessage);
    updateUsage();
    document.querySelectorAll('#graph .edge.last, #graph .edge.handoff-last').forEach(function (el) {
      el.classList.remove('last');
      el.classList.remove('handoff-last');
    });
    document.querySelectorAll('#graph .node.visited').forEach(function (el) { el.classList.remove('visited'); });
    var last = null;
    snap.messages.forEach(function (m) { if (m.type === 'HandoffMessage') last = m; });
    if (last) {
      var from = stateOfAgent(last.source), to = stateOfAgent(last.target);
      if (from !== null && to !== null) markHandoff(from, to);
    }
    setActive(snap.active, false);
    setSpeaking(snap.speaking);
    setAsking(snap.pendingRequest ? snap.pendingRequest.agent : null);
    setStatus(snap.status, snap.pendingRequest);
    $('stop-reason').textContent = '';
    renderProgress(snap.progress);
    renderSteps(snap);
    ui.spans = snap.spans || [];
    renderTimeline();
    markSelected();
  }

  function loadSession(id) {
    var ticket = ++ui.loading;
    return api('GET', '/api/sessions/' + encodeURIComponent(id)).then(function (snap) {
      if (ticket === ui.loading) applySnapshot(snap);
    });
  }

  // After a run of the session on screen: its step log and status, keeping the transcript as
  // streamed (with the run dividers a snapshot does not have).
  function refreshSteps(id, withStatus) {
    return api('GET', '/api/sessions/' + encodeURIComponent(id)).then(function (snap) {
      if (snap.id !== ui.sessionId) return;
      renderSteps(snap);
      if (!withStatus || snap.status === 'running') return;
      ui.handoffFrom = snap.handoffFrom || null;
      setActive(snap.active, false);
      setAsking(snap.pendingRequest ? snap.pendingRequest.agent : null);
      setStatus(snap.status, snap.pendingRequest);
    });
  }

  // ---- events --------------------------------------------------------------------------------

  function onEvent(name, handler) {
    events.addEventListener(name, function (e) {
      var data;
      try { data = JSON.parse(e.data); } catch (err) { return; }
      handler(data);
    });
  }

  var events = new EventSource('/api/events?token=' + encodeURIComponent(token));
  events.onopen = function () { $('connection').textContent = 'live'; $('connection').className = 'pill live'; };
  events.onerror = function () { $('connection').textContent = 'disconnected'; $('connection').className = 'pill down'; };

  onEvent('run', function (d) {
    if (d.session !== ui.sessionId) return;
    $('stop-reason').textContent = '';
    ui.handoffFrom = null;
    setAsking(null);
    setStatus('running');
  });
  onEvent('message', function (d) {
    if (d.session !== ui.sessionId) return;
    appendMessage(d.message);
    setActive(d.active, true);
    setSpeaking(d.speaking);
    if (d.progress !== undefined) renderProgress(d.progress);
  });
  onEvent('result', function (d) {
    if (d.session !== ui.sessionId) return;
    ui.handoffFrom = d.handoffFrom;
    setActive(d.active, true);
    setSpeaking([]);
    setAsking(d.pendingRequest ? d.pendingRequest.agent : null);
    setStatus(d.status, d.pendingRequest);
    renderProgress(d.progress);
    var usage = fmt(d.usage.promptTokens + d.usage.completionTokens) + ' tokens this run';
    if (d.status === 'awaiting_input') divider('awaiting input · ' + usage);
    else if (d.status === 'terminated') divider('terminated: ' + d.stopReason + ' · ' + usage);
    else divider('cancelled: the run was stopped · ' + usage);
    $('stop-reason').textContent = d.stopReason ? 'Finish reason: ' + d.stopReason : '';
  });
  onEvent('speakers', function (d) {
    if (d.session === ui.sessionId) setSpeaking(d.speaking);
  });
  onEvent('failure', function (d) {
    if (d.session !== ui.sessionId) return;
    divider('error: ' + d.error, true);
    refreshSteps(d.session, true).catch(function () {});
  });
  onEvent('span', function (d) {
    if (d.session !== ui.sessionId) return;
    ui.spans.push(d.span);
    renderTimeline();
  });
  onEvent('sessions', function (d) {
    refreshSessions().then(function () {
      if (d.id === ui.sessionId && d.reason === 'ran') return refreshSteps(d.id, false);
    }).catch(function () {});
  });

  // ---- controls ------------------------------------------------------------------------------

  $('reply-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var input = $('reply');
    var text = input.value;
    if (text.trim() === '' || ui.sessionId === null || ui.status === 'running') return;
    input.value = '';
    api('POST', '/api/sessions/' + encodeURIComponent(ui.sessionId) + '/run', { text: text })
      .catch(function (err) { showError(err.message); });
  });
  $('stop').addEventListener('click', function () {
    if (ui.sessionId === null) return;
    api('POST', '/api/sessions/' + encodeURIComponent(ui.sessionId) + '/stop', {})
      .catch(function (err) { showError(err.message); });
  });
  $('save-test').addEventListener('click', function () {
    if (ui.sessionId === null) return;
    api('POST', '/api/sessions/' + encodeURIComponent(ui.sessionId) + '/test', {})
      .then(function (r) { $('stop-reason').textContent = 'Saved ' + r.test + ' and ' + r.recording; })
      .catch(function (err) { showError(err.message); });
  });
  $('new-session').addEventListener('click', function () {
    api('POST', '/api/sessions', {})
      .then(function (r) { return refreshSessions().then(function () { return loadSession(r.id); }); })
      .catch(function (err) { showError(err.message); });
  });
  $('open-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var id = $('open-id').value.trim();
    if (id === '') return;
    loadSession(id).then(refreshSessions).catch(function (err) { showError(err.message); });
  });

  api('GET', '/api/workflow').then(function (w) {
    ui.workflow = w;
    ui.graph = w.graph;
    $('workflow-name').textContent = w.name + ' · ' + w.module;
    document.title = 'Baton devtools · ' + w.name;
    $('persistence').textContent = w.persistence;
    drawGraph(w.graph);
    return refreshSessions();
  }).then(function (sessions) {
    var mine = sessions.filter(function (x) { return x.origin === 'process'; });
    if (mine.length > 0) return loadSession(mine[0].id);
    return api('POST', '/api/sessions', {}).then(function (r) {
      return refreshSessions().then(function () { return loadSession(r.id); });
    });
  }).catch(function (err) { showError(err.message); });
})();
`;
