/** The customer chat page's stylesheet: one column, readable on a phone and on a desktop. */
export const CHAT_PAGE_STYLE = `
:root { --ink: #1d2433; --dim: #6b7385; --line: #d9dde6; --bg: #f5f6f9; --panel: #fff;
  --accent: #2f6fed; --ok: #15803d; --bad: #b91c1c; --handoff: #7c3aed; --ask: #1e40af; }
* { box-sizing: border-box; }
html, body { height: 100%; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
  background: var(--bg); display: flex; flex-direction: column; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 12px; padding: 10px 16px;
  background: var(--ink); color: #fff; }
header h1 { font-size: 17px; margin: 0; font-weight: 600; }
.grow { flex: 1; }
.pill { font-size: 12px; padding: 1px 9px; border-radius: 999px; background: #e5e7eb; color: var(--ink); }
.pill.running { background: #fef3c7; color: #92400e; }
.pill.awaiting_input { background: #dbeafe; color: var(--ask); }
.pill.terminated { background: #dcfce7; color: var(--ok); }
.pill.cancelled, .pill.failed { background: #fee2e2; color: var(--bad); }
main { flex: 1; min-height: 0; overflow-y: auto; padding: 16px; }
#transcript { max-width: 760px; margin: 0 auto; display: flex; flex-direction: column; gap: 10px; }
.msg { max-width: 85%; padding: 8px 12px; border-radius: 12px; background: var(--panel);
  border: 1px solid var(--line); overflow-wrap: anywhere; white-space: pre-wrap; }
.msg .who { font-size: 12px; font-weight: 600; color: var(--dim); margin-bottom: 2px; white-space: normal; }
.msg.user { align-self: flex-end; background: var(--accent); border-color: var(--accent); color: #fff; }
.msg.user .who { color: #dbe6fd; }
.msg.agent { align-self: flex-start; }
.msg.draft { opacity: .75; border-style: dashed; }
.note { align-self: center; font-size: 13px; color: var(--dim); text-align: center; overflow-wrap: anywhere; }
.note.handoff { color: var(--handoff); }
.note.failure { color: var(--bad); }
.approval { align-self: flex-start; max-width: 85%; padding: 10px 12px; border-radius: 12px;
  background: #eff6ff; border: 1px solid #bfdbfe; }
.approval .who { font-size: 12px; font-weight: 600; color: var(--ask); margin-bottom: 4px; }
.approval .call { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 8px; margin-top: 6px; }
.approval code { font: 13px ui-monospace, SFMono-Regular, Menlo, monospace; overflow-wrap: anywhere; }
.approval .outcome { font-size: 13px; font-weight: 600; }
.approval .outcome.approved { color: var(--ok); }
.approval .outcome.rejected { color: var(--bad); }
button { font: inherit; padding: 6px 14px; border-radius: 8px; border: 1px solid var(--line);
  background: #fff; cursor: pointer; }
button:disabled { opacity: .45; cursor: default; }
button.approve { background: var(--ok); border-color: var(--ok); color: #fff; }
button.reject { background: #fff; border-color: var(--bad); color: var(--bad); }
header button { padding: 3px 10px; font-size: 13px; }
form { border-top: 1px solid var(--line); background: var(--panel); padding: 10px 16px; }
form .inner { max-width: 760px; margin: 0 auto; }
#ask { display: block; font-size: 13px; color: var(--dim); margin-bottom: 6px; overflow-wrap: anywhere; }
form.waiting #ask { color: var(--ask); font-weight: 600; }
.row { display: flex; gap: 8px; }
#reply { flex: 1; min-width: 0; font: inherit; padding: 8px 10px; border: 1px solid var(--line); border-radius: 8px; }
#send { background: var(--accent); border-color: var(--accent); color: #fff; }
`;
