/**
 * The graph part of the devtools page's script (spliced into `PAGE_SCRIPT`, whose helpers `$`,
 * `s` and state `ui` it uses): draws the workflow graph as SVG from the server's layout, lights
 * the state the session is in, marks the latest handoff and runs a baton along each edge taken.
 */
export const GRAPH_SCRIPT = String.raw`
  // ---- graph ---------------------------------------------------------------------------------

  function drawGraph(graph) {
    var svg = $('graph');
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    if (!graph) {
      $('graph-note').textContent = 'This workflow has no compiled machine to draw.';
      return;
    }
    // The drawing scales to its panel (never above its own size): width 100%, height from the
    // viewBox's aspect ratio.
    svg.setAttribute('viewBox', graph.viewBox);
    svg.style.maxWidth = graph.width + 'px';
    var defs = s('defs');
    [['arrow', '#b4bccb'], ['arrow-hot', '#7c3aed']].forEach(function (m) {
      var marker = s('marker', { id: m[0], viewBox: '0 0 10 10', refX: 9, refY: 5,
        markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
      marker.appendChild(s('path', { d: 'M0,0 L10,5 L0,10 z', fill: m[1] }));
      defs.appendChild(marker);
    });
    svg.appendChild(defs);
    var edges = s('g', { id: 'edges' });
    graph.edges.forEach(function (e) {
      var g = s('g', { 'class': 'edge kind-' + e.kind, 'data-from': e.from, 'data-to': e.to, 'data-kind': e.kind });
      var path = s('path', { d: e.path });
      var title = s('title');
      title.textContent = e.from + ' → ' + e.to + (e.label === '' ? '' : ' (' + e.label + ')');
      g.appendChild(title);
      g.appendChild(path);
      // The arrow shows the target; the full name (handoff_to_x) is in the tooltip. A graph's
      // unconditional edge has no label.
      var shown = e.kind === 'handoff' ? 'handoff' : e.label;
      if (shown !== '') {
        var label = s('text', { x: e.labelX, y: e.labelY });
        label.textContent = shown;
        g.appendChild(label);
      }
      edges.appendChild(g);
    });
    svg.appendChild(edges);
    var nodes = s('g', { id: 'nodes' });
    graph.nodes.forEach(function (n) {
      var cls = 'node kind-' + n.kind + (n.id === ui.workflow.coordinator ? ' coordinator' : '') +
        (n.activation ? ' activation-' + n.activation : '');
      var g = s('g', { 'class': cls, 'data-state': n.id });
      if (n.activation) {
        var tip = s('title');
        tip.textContent = n.label + (n.activation === 'all'
          ? ': runs once every active incoming edge has fired' : ': runs on the first incoming edge');
        g.appendChild(tip);
      }
      g.appendChild(s('rect', { x: n.x - n.width / 2, y: n.y - n.height / 2, width: n.width, height: n.height }));
      var text = s('text', { x: n.x, y: n.y });
      text.textContent = n.label;
      g.appendChild(text);
      nodes.appendChild(g);
    });
    svg.appendChild(nodes);
    svg.appendChild(s('g', { id: 'batons' }));
    $('graph-note').textContent = 'Drawn from the compiled statechart "' + graph.id +
      '". Orange: where the session is; purple: the latest handoff.';
  }

  function nodeEl(id) {
    return document.querySelector('#graph .node[data-state="' + CSS.escape(id) + '"]');
  }
  function edgeEl(from, to) {
    return document.querySelector('#graph .edge[data-from="' + CSS.escape(from) + '"][data-to="' + CSS.escape(to) + '"]');
  }

  function setActive(next, animate) {
    var previous = ui.active;
    ui.active = next;
    document.querySelectorAll('#graph .node.active').forEach(function (el) { el.classList.remove('active'); });
    if (next !== null && nodeEl(next)) nodeEl(next).classList.add('active');
    if (!animate || previous === null || next === null || previous === next) return;
    var edge = edgeEl(previous, next);
    if (!edge) return;
    document.querySelectorAll('#graph .edge.last').forEach(function (el) { el.classList.remove('last'); });
    edge.classList.add('last');
    var kind = edge.getAttribute('data-kind');
    if (kind === 'handoff' || kind === 'next' || kind === 'selects') markHandoff(previous, next);
    runBaton(edge);
  }

  // Every participant taking a turn right now: all the nodes of a group step at once.
  function setSpeaking(states) {
    document.querySelectorAll('#graph .node.speaking').forEach(function (el) { el.classList.remove('speaking'); });
    (states || []).forEach(function (id) { if (nodeEl(id)) nodeEl(id).classList.add('speaking'); });
  }

  function markHandoff(from, to) {
    document.querySelectorAll('#graph .edge.handoff-last').forEach(function (el) { el.classList.remove('handoff-last'); });
    var edge = edgeEl(from, to);
    if (edge) edge.classList.add('handoff-last');
    var node = nodeEl(to);
    if (node) node.classList.add('visited');
  }

  // The baton: a dot that runs along the edge once (SVG animateMotion), then goes away.
  function runBaton(edge) {
    var path = edge.querySelector('path');
    if (!path) return;
    var dot = s('circle', { r: 6, 'class': 'baton' });
    var motion = s('animateMotion', { dur: '0.7s', begin: 'indefinite', fill: 'freeze', path: path.getAttribute('d') });
    dot.appendChild(motion);
    $('batons').appendChild(dot);
    if (typeof motion.beginElement === 'function') motion.beginElement();
    setTimeout(function () { dot.remove(); }, 900);
  }

  function setAsking(agent) {
    ui.asking = agent;
    document.querySelectorAll('#graph .node.asking').forEach(function (el) { el.classList.remove('asking'); });
    var state = agent === null ? null : stateOfAgent(agent);
    if (state !== null && nodeEl(state)) nodeEl(state).classList.add('asking');
  }

  function stateOfAgent(name) {
    if (!ui.graph) return null;
    for (var i = 0; i < ui.graph.nodes.length; i++) {
      var n = ui.graph.nodes[i];
      if (n.kind === 'agent' && !n.router && n.agent === name) return n.id;
    }
    return null;
  }

`;
