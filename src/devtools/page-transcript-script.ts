/**
 * The devtools page's transcript (part of `PAGE_SCRIPT`, same conventions): each message as a
 * bubble with its usage, tool calls and results, streamed chunks joined into a draft until the
 * answer lands, and dividers between runs.
 */
export const TRANSCRIPT_SCRIPT = String.raw`
  // ---- transcript ----------------------------------------------------------------------------

  function usageOf(m) {
    return m.usage ? (m.usage.promptTokens || 0) + (m.usage.completionTokens || 0) : 0;
  }

  function usageBadge(m) {
    if (!m.usage || usageOf(m) === 0) return null;
    var b = h('span', 'usage', [fmt(m.usage.promptTokens) + ' prompt + ' + fmt(m.usage.completionTokens) + ' completion tokens']);
    b.title = 'token usage of this message';
    return b;
  }

  function pretty(args) {
    try { return JSON.stringify(JSON.parse(args)); } catch (e) { return String(args); }
  }

  function bubble(m, className, label, body) {
    var who = h('div', 'who', [h('b', null, [m.source]), label ? h('span', null, [label]) : null, usageBadge(m)]);
    var el = h('div', 'msg ' + className, [who, body]);
    el.setAttribute('data-type', m.type);
    el.setAttribute('data-source', m.source);
    return el;
  }

  function renderMessage(m) {
    switch (m.type) {
      case 'ModelClientStreamingChunkEvent': return null;
      case 'TextMessage':
        return bubble(m, m.source === 'user' ? 'user' : 'text', null, h('div', 'body', [m.content]));
      case 'StopMessage':
        return bubble(m, 'text', 'stop', h('div', 'body', [m.content]));
      case 'StructuredMessage':
        return bubble(m, 'text', 'structured', h('pre', 'body', [JSON.stringify(m.content, null, 2)]));
      case 'HandoffMessage':
        return bubble(m, 'handoff', '→ ' + m.target, h('div', null, [h('div', 'body', [m.content]),
          m.brief === undefined ? null : h('pre', 'brief', ['brief ' + JSON.stringify(m.brief)])]));
      case 'ToolCallRequestEvent':
        return bubble(m, 'tool', 'calls', h('div', null, m.content.map(function (c) {
          return h('pre', null, [c.name + '(' + pretty(c.arguments) + ')']);
        })));
      case 'ToolCallExecutionEvent':
        return bubble(m, 'tool', 'results', h('div', null, m.content.map(function (r) {
          return h('pre', r.isError ? 'error' : null, [r.name + ' → ' + r.content]);
        })));
      case 'ToolCallSummaryMessage':
        return bubble(m, 'tool', 'tool summary', h('div', null, [h('div', 'body', [m.content])].concat(
          m.toolCalls.map(function (c) { return h('pre', null, [c.name + '(' + pretty(c.arguments) + ')']); }))));
      case 'UserInputRequestedEvent':
        return bubble(m, 'ask', 'asks the user', null);
      case 'ThoughtEvent':
        return bubble(m, 'thought', 'thinks', h('div', 'body', [m.content]));
      case 'SelectSpeakerEvent':
        return bubble(m, 'ask', 'selected ' + m.content.join(', '), null);
      case 'ToolApprovalRequestEvent':
        return bubble(m, 'ask', 'asks to approve', h('div', null, m.content.map(function (c) {
          return h('pre', null, [c.name + '(' + pretty(c.arguments) + ')']);
        })));
      case 'ToolInDoubtEvent':
        return bubble(m, 'ask', 'may or may not have completed', h('div', null, m.content.map(function (c) {
          return h('pre', null, [c.name + '(' + pretty(c.arguments) + ')']);
        })));
      case 'ToolApprovalResponseEvent':
        if (typeof m.result === 'string') {
          return bubble(m, 'user', 'gave the result', h('div', 'body', [m.callId + ': ' + m.result]));
        }
        return bubble(m, 'user', m.approved ? 'approved' : 'rejected',
          h('div', 'body', [m.callId + (m.reason ? ': ' + m.reason : '')]));
      case 'GuardrailTrippedEvent':
        return bubble(m, 'text', 'guardrail tripped', h('div', 'body', [m.content]));
      default:
        return bubble(m, 'text', m.type, h('div', 'body', [JSON.stringify(m.content)]));
    }
  }

  function appendMessage(m) {
    var box = $('transcript');
    if (m.type === 'ModelClientStreamingChunkEvent') {
      var draft = ui.drafts[m.source];
      if (!draft) {
        draft = bubble(m, 'draft', 'typing…', h('div', 'body', []));
        ui.drafts[m.source] = draft;
        box.appendChild(draft);
      }
      draft.querySelector('.body').textContent += m.content;
      draft.scrollIntoView({ block: 'end' });
      return;
    }
    if (ui.drafts[m.source]) {
      ui.drafts[m.source].remove();
      delete ui.drafts[m.source];
    }
    ui.messages.push(m);
    var el = renderMessage(m);
    if (el) {
      box.appendChild(el);
      el.scrollIntoView({ block: 'end' });
    }
    updateUsage();
  }

  function updateUsage() {
    var p = 0, c = 0;
    ui.messages.forEach(function (m) {
      if (m.usage) { p += m.usage.promptTokens || 0; c += m.usage.completionTokens || 0; }
    });
    $('usage-total').textContent = fmt(p + c);
    $('usage-split').textContent = '(' + fmt(p) + ' prompt + ' + fmt(c) + ' completion)';
  }

  function divider(text, failure) {
    var line = h('div', 'divider' + (failure ? ' failure' : ''), [text]);
    $('transcript').appendChild(line);
    line.scrollIntoView({ block: 'end' });
  }

`;
