/**
 * The chat page's connection to `serve()` (part of `CHAT_PAGE_SCRIPT`): requests carry the
 * bearer token in `Authorization`, which EventSource cannot send, so server-sent events are read
 * from `fetch()`'s body. A run's events come on the answer of `POST /sessions/:id/runs`; after a
 * reload or a lost connection the page follows `GET /sessions/:id/stream` from the last event id
 * it kept (`Last-Event-ID`), so nothing is missed and nothing shown twice. A stream that ends
 * without its `result` asks the session's `info()` whether to follow again.
 */
export const CHAT_STREAM_SCRIPT = String.raw`
  var base = location.pathname.charAt(location.pathname.length - 1) === '/' ? location.pathname : location.pathname + '/';

  function sessionPath(suffix) {
    return base + 'sessions/' + encodeURIComponent(chat.sessionId) + (suffix || '');
  }

  function request(method, path, body, headers) {
    var init = { method: method, headers: headers || {} };
    if (token) init.headers.authorization = 'Bearer ' + token;
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(path, init);
  }

  /** Rejects with the server's error message (§15: { error: { code, message } }). */
  function failure(response) {
    return response.json().catch(function () { return {}; }).then(function (json) {
      var message = json && json.error && json.error.message;
      if (response.status === 401) message = 'This page needs its access token: open the address that "baton serve" printed.';
      var error = new Error(message || response.status + ' ' + response.statusText);
      error.status = response.status;
      throw error;
    });
  }

  function json(response) {
    return response.ok ? response.json() : failure(response);
  }

  function parseBlock(block) {
    var event = { id: null, event: 'message', data: [] };
    block.split('\n').forEach(function (line) {
      if (line === '' || line.charAt(0) === ':') return;
      var colon = line.indexOf(':');
      var field = colon < 0 ? line : line.slice(0, colon);
      var value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.charAt(0) === ' ') value = value.slice(1);
      if (field === 'data') event.data.push(value);
      else if (field === 'event') event.event = value;
      else if (field === 'id') event.id = value;
    });
    return event.data.length === 0 ? null : { id: event.id, event: event.event, data: event.data.join('\n') };
  }

  /** Reads a text/event-stream body to its end; resolves whether the run's result came. */
  function follow(response) {
    var reader = response.body.getReader();
    var decoder = new TextDecoder();
    var buffer = '';
    var done = false;
    var generation = ui.generation;
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done || generation !== ui.generation) return done;
        buffer = (buffer + decoder.decode(chunk.value, { stream: true })).replace(/\r\n?/g, '\n');
        var blocks = buffer.split('\n\n');
        buffer = blocks.pop();
        blocks.forEach(function (block) {
          if (generation !== ui.generation) return;
          var event = parseBlock(block);
          if (event && receive(event)) done = true;
        });
        return pump();
      });
    }
    return pump();
  }

  /** Applies one event and keeps the page's state; true for the run's result. */
  function receive(event) {
    var data = JSON.parse(event.data);
    if (event.id) chat.lastEventId = event.id;
    var ended = false;
    if (event.event === 'result') {
      ended = true;
      applyResult(data);
    } else if (event.event === 'error') {
      flash((data.error && data.error.message) || 'The run failed.');
    } else {
      applyMessage(data);
    }
    save();
    refresh();
    return ended;
  }

  var retries = 0;

  /** Follows the session from the last event the page kept. */
  function reconnect() {
    if (!chat.sessionId) return Promise.resolve();
    var headers = { accept: 'text/event-stream' };
    if (chat.lastEventId) headers['last-event-id'] = chat.lastEventId;
    ui.following = true;
    refresh();
    return request('GET', sessionPath('/stream'), undefined, headers).then(function (response) {
      retries = 0;
      if (response.status === 204) return settle();
      if (!response.ok) return failure(response);
      return follow(response).then(function (ended) { return ended ? null : settle(); });
    }).catch(lost).then(function () { ui.following = false; refresh(); });
  }

  /** Reads the session's status after a stream that ended without its result. */
  function settle() {
    return request('GET', sessionPath()).then(json).then(function (info) {
      if (info.status === 'running') return wait(300).then(reconnect);
      chat.status = info.status;
      chat.pending = info.pendingRequest || null;
      save();
    });
  }

  function lost(error) {
    if (error && error.status === 404) {
      forget();
      flash('This conversation is no longer available. Write to start a new one.');
      return;
    }
    if (error && error.status) return flash(error.message);
    if (retries >= 8) return flash('The connection is lost. Reload the page to try again.');
    retries++;
    return wait(250 * retries).then(reconnect);
  }

  function wait(ms) {
    return new Promise(function (done) { setTimeout(done, ms); });
  }

  function ensureSession() {
    if (chat.sessionId) return Promise.resolve(chat.sessionId);
    return request('POST', base + 'sessions', {}).then(json).then(function (created) {
      chat.sessionId = created.id;
      save();
      return created.id;
    });
  }

  /** Starts a run (a message or decisions) and follows its events. */
  function run(body) {
    ui.busy = true;
    refresh();
    return ensureSession().then(function () {
      return request('POST', sessionPath('/runs'), body, { accept: 'text/event-stream' });
    }).then(function (response) {
      if (!response.ok) return failure(response);
      chat.status = 'running';
      chat.pending = null;
      save();
      refresh();
      return follow(response).then(function (ended) { return ended ? null : settle(); });
    }).catch(function (error) {
      if (error && error.status) flash(error.message);
      else return lost(error);
    }).then(function () { ui.busy = false; refresh(); });
  }

  function stopRun() {
    if (!chat.sessionId) return;
    request('POST', sessionPath('/stop'), {}).then(function (response) {
      if (!response.ok && response.status !== 409) return failure(response);
    }).catch(function (error) { flash(error.message); });
  }
`;
