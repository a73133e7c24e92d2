/**
 * The devtools page's session list and step log (part of `PAGE_SCRIPT`, same conventions): the
 * sessions this server knows, the one on screen marked, and its committed steps with a Fork
 * button each.
 */
export const SESSIONS_SCRIPT = String.raw`
  // ---- sessions and steps --------------------------------------------------------------------

  function renderSteps(snap) {
    var list = $('steps');
    while (list.firstChild) list.removeChild(list.firstChild);
    $('steps-of').textContent = snap.id;
    $('session-state').textContent = 'state ' + JSON.stringify(snap.state);
    $('steps-note').textContent = snap.checkpoints ? (snap.checkpoints.length === 0 ? 'No steps yet.' : '') : (snap.checkpointsNote || '');
    (snap.checkpoints || []).forEach(function (c) {
      var fork = h('button', 'fork', ['fork from this step']);
      fork.type = 'button';
      fork.setAttribute('data-step', c.step);
      fork.addEventListener('click', function () {
        api('POST', '/api/sessions', { from: { session: snap.id, step: c.step } })
          .then(function (r) { return refreshSessions().then(function () { return loadSession(r.id); }); })
          .catch(function (e) { showError('Fork failed: ' + e.message); });
      });
      var when = new Date(c.at).toLocaleTimeString();
      var parts = [h('b', null, [String(c.step)]), h('span', 'event', [c.event]), h('span', 'note', [when])];
      if (c.patch) parts.push(h('code', 'patch', [JSON.stringify(c.patch)]));
      parts.push(fork);
      list.appendChild(h('li', null, parts));
    });
  }

  function refreshSessions() {
    return api('GET', '/api/sessions').then(function (r) {
      var list = $('sessions');
      while (list.firstChild) list.removeChild(list.firstChild);
      r.sessions.forEach(function (item) {
        var li = h('li', null, [h('code', null, [item.id]), h('span', 'pill ' + item.status, [item.status.replace('_', ' ')]),
          h('span', 'note', ['step ' + item.step + (item.origin === 'store' ? ' · stored' : '')])]);
        li.setAttribute('data-session', item.id);
        li.addEventListener('click', function () { loadSession(item.id).catch(function (e) { showError(e.message); }); });
        list.appendChild(li);
      });
      markSelected();
      return r.sessions;
    });
  }

  function markSelected() {
    document.querySelectorAll('#sessions li').forEach(function (li) {
      li.classList.toggle('selected', li.getAttribute('data-session') === ui.sessionId);
    });
  }

`;
