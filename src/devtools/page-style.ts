/** The devtools page's stylesheet. */
export const PAGE_STYLE = `
:root { --ink: #1d2433; --dim: #6b7385; --line: #d9dde6; --bg: #f5f6f9; --panel: #fff;
  --accent: #2f6fed; --active: #f59e0b; --ok: #15803d; --bad: #b91c1c; --handoff: #7c3aed; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
  background: var(--bg); height: 100vh; display: flex; flex-direction: column; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 12px; padding: 8px 16px; background: var(--ink); color: #fff; }
header h1 { font-size: 16px; margin: 0; font-weight: 600; }
#workflow-name { font-weight: 400; opacity: .8; margin-left: 6px; overflow-wrap: anywhere; }
main { flex: 1; display: grid; grid-template-columns: minmax(0, 46%) minmax(0, 1fr); gap: 12px; padding: 12px; min-height: 0; }
section { display: flex; flex-direction: column; gap: 12px; min-height: 0; min-width: 0; overflow: auto; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; min-width: 0; }
.grow-panel { flex: 1; min-height: 160px; display: flex; flex-direction: column; }
h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--dim); margin: 0 0 8px; }
h3 { font-size: 13px; margin: 12px 0 4px; }
.row { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
.row h2 { margin: 0; }
.grow { flex: 1; }
.small { font-size: 12px; margin-top: 6px; }
.note { color: var(--dim); font-size: 12px; margin: 4px 0; }
#session-id { text-transform: none; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
button { font: inherit; padding: 5px 12px; border-radius: 6px; border: 1px solid var(--line); background: #fff; cursor: pointer; }
button:hover:not(:disabled) { border-color: var(--accent); }
button:disabled { opacity: .45; cursor: default; }
#stop:not(:disabled) { background: var(--bad); border-color: var(--bad); color: #fff; }
#send { background: var(--accent); border-color: var(--accent); color: #fff; }
input { font: inherit; padding: 5px 8px; border: 1px solid var(--line); border-radius: 6px; min-width: 0; }
#reply { flex: 1; }
#open-form input { flex: 1; }
.pill { font-size: 12px; padding: 1px 8px; border-radius: 999px; background: #e5e7eb; color: var(--ink); }
.pill.running { background: #fef3c7; color: #92400e; }
.pill.awaiting_input { background: #dbeafe; color: #1e40af; }
.pill.terminated { background: #dcfce7; color: var(--ok); }
.pill.cancelled { background: #fee2e2; color: var(--bad); }
.pill.live { background: #dcfce7; color: var(--ok); }
.pill.down { background: #fee2e2; color: var(--bad); }
#graph-box { overflow: hidden; }
#graph { display: block; width: 100%; height: auto; margin: 0 auto; }
.node rect { fill: #fff; stroke: #9aa3b5; stroke-width: 1.5; rx: 8; transition: fill .3s, stroke .3s; }
.node.kind-input rect { rx: 20; fill: #eef2ff; }
.node.kind-stopped rect { fill: #f3f4f6; stroke-dasharray: 4 3; }
.node.kind-select rect { fill: #fdf4ff; }
.node.activation-any rect { rx: 20; }
.node.coordinator rect { stroke-width: 2.5; }
.node text { font-size: 13px; text-anchor: middle; dominant-baseline: central; pointer-events: none; }
.node.visited rect { stroke: var(--handoff); }
.node.asking rect { stroke: var(--accent); stroke-width: 2.5; }
.node.active rect, .node.speaking rect { fill: #fff7e6; stroke: var(--active); stroke-width: 3; }
.node.active, .node.speaking { filter: drop-shadow(0 0 6px rgba(245, 158, 11, .6)); }
.edge path { fill: none; stroke: #b4bccb; stroke-width: 1.5; marker-end: url(#arrow); }
.edge.kind-reroute path { stroke-dasharray: 2 3; }
.edge.kind-asks path, .edge.kind-leaves path { stroke-dasharray: 5 4; stroke: #cdd3de; }
.edge.kind-asks text { fill: #9aa3b5; }
.edge.kind-handoff path { stroke: #a78bfa; }
.edge text { font-size: 10px; fill: var(--dim); text-anchor: middle; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.edge.last path { stroke: var(--active); stroke-width: 2.5; }
.edge.handoff-last path { stroke: var(--handoff); stroke-width: 3; marker-end: url(#arrow-hot); }
.edge.handoff-last text { fill: var(--handoff); font-weight: 600; }
.baton { fill: var(--handoff); }
#sessions { list-style: none; padding: 0; margin: 6px 0; max-height: 180px; overflow: auto; }
#sessions li { display: flex; gap: 8px; align-items: center; padding: 4px 6px; border-radius: 6px; cursor: pointer; }
#sessions li:hover { background: var(--bg); }
#sessions li.selected { background: #e8efff; }
#steps { margin: 4px 0; padding-left: 0; list-style: none; max-height: 220px; overflow: auto; font-size: 12px; }
#steps li { display: flex; gap: 8px; align-items: center; padding: 2px 0; }
#steps li button { padding: 0 8px; font-size: 11px; }
#steps .event { flex: 1; }
#conditions { margin-top: 8px; font-size: 12px; }
.cond { display: flex; align-items: center; gap: 8px; margin: 2px 0; }
.cond .bar { width: 120px; height: 6px; background: #e5e7eb; border-radius: 3px; overflow: hidden; }
.cond .bar i { display: block; height: 100%; background: var(--accent); }
.cond.fired .bar i { background: var(--bad); }
.cond.fired .label { color: var(--bad); font-weight: 600; }
.cond-group { margin-left: 14px; }
#transcript { flex: 1; overflow: auto; display: flex; flex-direction: column; gap: 6px; min-height: 120px; }
.msg { border: 1px solid var(--line); border-radius: 8px; padding: 6px 10px; background: #fff; }
.msg .who { font-size: 12px; color: var(--dim); display: flex; gap: 8px; align-items: baseline; }
.msg .who b { color: var(--ink); }
.msg .body { white-space: pre-wrap; word-break: break-word; }
.msg.user { background: #eef4ff; border-color: #c7d7fe; align-self: flex-end; max-width: 85%; }
.msg.tool { background: #fafafa; font-size: 12px; }
.msg.tool pre { margin: 2px 0; white-space: pre-wrap; font-family: ui-monospace, Menlo, monospace; }
.msg pre { white-space: pre-wrap; overflow-wrap: anywhere; }
.msg.tool .error { color: var(--bad); }
.msg.handoff { border-color: #c4b5fd; background: #f5f3ff; }
.msg.ask { border-style: dashed; color: var(--dim); font-size: 12px; }
.msg.draft { opacity: .7; border-style: dotted; }
.msg.thought { color: var(--dim); font-style: italic; }
.usage { font-size: 11px; color: var(--dim); margin-left: auto; }
.divider { text-align: center; font-size: 12px; color: var(--dim); border-top: 1px dashed var(--line); padding-top: 4px; }
.divider.failure { color: var(--bad); border-color: var(--bad); }
#reply-form.waiting { border-color: var(--accent); box-shadow: 0 0 0 2px #dbeafe; }
#ask { display: block; font-size: 12px; color: var(--dim); margin-bottom: 6px; }
#approvals .approval { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-bottom: 6px; }
#approvals .approval pre { flex: 1 1 14em; min-width: 0; margin: 0; font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
#approvals button.approve { background: #15803d; color: #fff; }
#approvals button.resolve { background: #1d4ed8; color: #fff; }
#approvals button.reject { background: #b91c1c; color: #fff; }
#reply-form.waiting #ask { color: #1e40af; font-weight: 600; }
#timeline { max-height: 240px; overflow: auto; font-size: 12px; }
.tl-run { margin-bottom: 8px; }
.tl-head { display: flex; gap: 8px; font-weight: 600; margin-bottom: 2px; }
.tl-row { display: grid; grid-template-columns: minmax(160px, 40%) 1fr; gap: 8px; align-items: center; }
.tl-row.depth-1 .tl-label { padding-left: 14px; color: var(--dim); }
.tl-label { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.tl-track { position: relative; height: 10px; background: var(--bg); border-radius: 3px; }
.tl-bar { position: absolute; top: 0; bottom: 0; border-radius: 3px; background: var(--accent); }
.tl-bar.op-invoke_agent { background: var(--handoff); opacity: .6; }
.tl-bar.op-execute_tool { background: var(--ok); }
.tl-bar.failed { background: var(--bad); }
.tl-bar.stopped { background: repeating-linear-gradient(135deg, #9aa3b5 0 3px, #d9dde6 3px 6px); }
/* A narrow screen stacks the panels in one column, the page scrolls as a whole: the graph, the
   session, its transcript and the reply box first, then the timeline and the session list. */
@media (max-width: 899px) {
  body { height: auto; min-height: 100vh; }
  main { display: flex; flex-direction: column; padding: 8px; gap: 8px; }
  section { display: contents; }
  #graph-panel { order: 1; }
  #session-head { order: 2; }
  #transcript-panel { order: 3; min-height: 240px; }
  #transcript { max-height: 60vh; }
  #reply-form { order: 4; }
  #timeline-panel { order: 5; }
  #sessions-panel { order: 6; }
}
`;
