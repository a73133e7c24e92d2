import { CONTROLS_SOURCE } from '../visible-controls.js';

/**
 * The chat page's transcript (part of `CHAT_PAGE_SCRIPT`, same conventions): what a customer
 * sees of each message. Agents' answers carry the agent's name; a handoff is a line between
 * them; a tool the desk uses is a short note; a call that needs the customer's approval is a card
 * with Approve and Reject buttons, which shows the decision once one is recorded. Everything is
 * built with `textContent`, never `innerHTML`, so no message can inject markup. What an approval
 * card shows of a call (the agent, the tool, its arguments, the decision's reason) has every
 * control character made visible as `baton run`'s prompt does (`visibleControls()`, the same
 * pattern): a bidi override cannot make "5000" read "0005".
 */
export const CHAT_RENDER_SCRIPT = String.raw`
  var CONTROLS = new RegExp(${JSON.stringify(CONTROLS_SOURCE)}, 'g');
  var NAMED_CONTROLS = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

  function visible(text) {
    return String(text).replace(CONTROLS, function (c) {
      if (c === '\r\n') return '\\r\\n';
      if (NAMED_CONTROLS[c]) return NAMED_CONTROLS[c];
      var code = c.charCodeAt(0);
      return code < 0x100 ? '\\x' + ('0' + code.toString(16)).slice(-2) : '\\u' + ('000' + code.toString(16)).slice(-4);
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

  function bubble(m, text) {
    var user = m.source === 'user';
    var el = h('div', 'msg ' + (user ? 'user' : 'agent'), [
      h('div', 'who', [user ? 'You' : m.source]), h('div', 'body', [text])]);
    el.setAttribute('data-type', m.type);
    el.setAttribute('data-source', m.source);
    return el;
  }

  function note(text, className) {
    return h('div', 'note' + (className ? ' ' + className : ''), [text]);
  }

  function argsText(args) {
    try { return JSON.stringify(JSON.parse(args)); } catch (e) { return String(args); }
  }

  function approvalCard(m) {
    var card = h('div', 'approval', [h('div', 'who', [visible(m.source) + ' asks for your approval'])]);
    card.setAttribute('data-source', m.source);
    m.content.forEach(function (call) {
      var approve = h('button', 'approve', ['Approve']);
      var reject = h('button', 'reject', ['Reject']);
      approve.type = reject.type = 'button';
      approve.addEventListener('click', function () { decide(call.id, true); });
      reject.addEventListener('click', function () { decide(call.id, false); });
      var row = h('div', 'call', [h('code', null, [visible(call.name) + '(' + visible(argsText(call.arguments)) + ')']), approve, reject]);
      row.setAttribute('data-call-id', call.id);
      ui.calls[call.id] = row;
      card.appendChild(row);
    });
    return card;
  }

  /** The row of an approval card shows the decision in place of its buttons. */
  function showDecision(m) {
    var row = ui.calls[m.callId];
    if (!row) return;
    Array.prototype.slice.call(row.querySelectorAll('button')).forEach(function (b) { b.remove(); });
    var outcome = m.approved ? 'Approved' : 'Rejected';
    row.appendChild(h('span', 'outcome ' + (m.approved ? 'approved' : 'rejected'),
      [outcome + (m.reason ? ': ' + visible(m.reason) : '')]));
    row.setAttribute('data-decided', m.approved ? 'approved' : 'rejected');
  }

  /** A user's message answers every open approval (the server rejects them with its text). */
  function closeOpenCalls() {
    Object.keys(ui.calls).forEach(function (id) {
      if (!ui.calls[id].hasAttribute('data-decided')) ui.calls[id].setAttribute('data-decided', 'answered');
    });
  }

  function toolNote(m) {
    var used = m.content.filter(function (c) { return c.name.indexOf('handoff_to_') !== 0; })
      .map(function (c) { return c.name; });
    return used.length === 0 ? null : note(m.source + ' is using ' + used.join(', '), 'tool');
  }

  function renderMessage(m) {
    switch (m.type) {
      case 'TextMessage':
        if (m.source === 'user') closeOpenCalls();
        return bubble(m, m.content);
      case 'ToolCallSummaryMessage': return bubble(m, m.content);
      case 'StructuredMessage': return bubble(m, JSON.stringify(m.content, null, 2));
      case 'HandoffMessage': return note(m.source + ' handed over to ' + m.target, 'handoff');
      case 'ToolCallRequestEvent': return toolNote(m);
      case 'ToolApprovalRequestEvent': return approvalCard(m);
      case 'ToolApprovalResponseEvent': showDecision(m); return null;
      case 'StopMessage': return note(m.content, 'stop');
      case 'GuardrailTrippedEvent': return note('Blocked by ' + m.source + (m.content ? ': ' + m.content : ''), 'failure');
      case 'ToolInDoubtEvent': return note('A call of ' + m.source + ' is in doubt; support will check it.', 'failure');
      case 'RunEnded':
        if (m.status === 'terminated') return note('The conversation has ended' + (m.stopReason ? ' (' + m.stopReason + ')' : '') + '. Write again to go on.', 'ended');
        if (m.status === 'cancelled') return note('Stopped.', 'ended');
        return null;
      default: return null;
    }
  }

  function append(el) {
    if (!el) return;
    $('transcript').appendChild(el);
    scrollDown();
  }

  function scrollDown() {
    var s = $('scroller');
    s.scrollTop = s.scrollHeight;
  }

  /** The streamed text of an answer still being written, under its agent's name. */
  function renderDraft(source) {
    var el = ui.drafts[source];
    if (!el) {
      el = bubble({ type: 'draft', source: source }, '');
      el.classList.add('draft');
      ui.drafts[source] = el;
      $('transcript').appendChild(el);
    }
    el.querySelector('.body').textContent = chat.drafts[source];
    scrollDown();
  }

  function dropDraft(source) {
    if (ui.drafts[source]) ui.drafts[source].remove();
    delete ui.drafts[source];
    delete chat.drafts[source];
  }

  /** A passing line (a failed request, a lost connection): shown, not kept. */
  function flash(text) {
    append(note(text, 'failure flash'));
  }
`;
