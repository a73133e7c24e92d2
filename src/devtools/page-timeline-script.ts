/**
 * The devtools page's waterfall (part of `PAGE_SCRIPT`, same conventions): per run of the session
 * on screen, each agent turn with its model calls and tool executions, as bars placed by start
 * time and sized by duration, from the spans the server streams (`span` events).
 */
export const TIMELINE_SCRIPT = String.raw`
  // ---- timeline ------------------------------------------------------------------------------

  var RUNS_SHOWN = 3;

  function ms(n) { return n < 10 ? n.toFixed(1) + ' ms' : Math.round(n).toLocaleString('en-US') + ' ms'; }

  function renderTimeline() {
    var box = $('timeline');
    while (box.firstChild) box.removeChild(box.firstChild);
    var runs = {}, order = [];
    ui.spans.forEach(function (sp) {
      var key = String(sp.runId);
      if (!runs[key]) { runs[key] = []; order.push(key); }
      runs[key].push(sp);
    });
    if (order.length === 0) {
      box.appendChild(h('p', 'note', ['Runs of this session in this process show their agent turns, model calls and tools here.']));
      return;
    }
    order.slice(-RUNS_SHOWN).reverse().forEach(function (key) { box.appendChild(runBlock(runs[key])); });
  }

  function runBlock(spans) {
    var start = Infinity, end = 0, run = null;
    spans.forEach(function (sp) {
      start = Math.min(start, sp.startTime);
      end = Math.max(end, sp.startTime + sp.durationMs);
      if (sp.operation === 'invoke_workflow') run = sp;
    });
    var total = Math.max(end - start, 0.001);
    var head = h('div', 'tl-head', [run ? 'run · ' + ms(run.durationMs) : 'run in progress…',
      h('span', 'note', [new Date(start).toLocaleTimeString()])]);
    var rows = [head];
    var children = function (id) {
      return spans.filter(function (sp) { return sp.parentId === id; })
        .sort(function (a, b) { return a.startTime - b.startTime; });
    };
    var roots = run ? children(run.id) : spans.filter(function (sp) {
      return sp.operation !== 'invoke_workflow' && !spans.some(function (p) { return p.id === sp.parentId; });
    });
    roots.forEach(function (sp) {
      rows.push(row(sp, start, total, 0));
      children(sp.id).forEach(function (child) { rows.push(row(child, start, total, 1)); });
    });
    return h('div', 'tl-run', rows);
  }

  function row(sp, start, total, depth) {
    var bar = h('i', 'tl-bar op-' + sp.operation + (sp.errorType ? ' failed' : '') + (sp.stopped ? ' stopped' : ''));
    bar.style.left = ((sp.startTime - start) / total * 100).toFixed(2) + '%';
    bar.style.width = Math.max(sp.durationMs / total * 100, 0.5).toFixed(2) + '%';
    var label = sp.name + ' · ' + ms(sp.durationMs);
    if (sp.tokens) label += ' · ' + fmt(sp.tokens.input) + '+' + fmt(sp.tokens.output) + ' tokens';
    if (sp.errorType) label += ' · ' + sp.errorType;
    if (sp.stopped) label += ' · stopped';
    var el = h('div', 'tl-row depth-' + depth, [h('span', 'tl-label', [label]), h('span', 'tl-track', [bar])]);
    el.setAttribute('data-operation', sp.operation);
    el.title = label;
    return el;
  }
`;
