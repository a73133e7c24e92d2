// Runs a small handoff desk in a process where @opentelemetry/api cannot be found (see
// hide-opentelemetry.cjs) and prints what happened as one JSON line.
import { createRequire } from 'node:module';

import {
  Agent,
  type FinishedSpan,
  HandoffBuilder,
  onSpanEnd,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
} from '../../src/index.js';

let resolvable = true;
try {
  createRequire(import.meta.url).resolve('@opentelemetry/api');
} catch {
  resolvable = false;
}

const triage = new Agent({
  name: 'triage',
  client: new ScriptedChatClient([scriptedToolCall('handoff_to_billing')], { model: 'm' }),
});
const billing = new Agent({
  name: 'billing',
  client: new ScriptedChatClient([scriptedText('Paid.'), scriptedText('Still paid.')]),
});
const workflow = new HandoffBuilder({ name: 'desk', participants: [triage, billing] })
  .coordinator(triage)
  .withUserReplyRouting('last_agent')
  .build();

const first = await workflow.session('s').run('Is it paid?');
const spans: FinishedSpan[] = [];
const stop = onSpanEnd((span) => spans.push(span));
const second = await workflow.session('s').run('Really?');
stop();
console.log(
  JSON.stringify({
    resolvable,
    statuses: [first.status, second.status],
    spans: spans.map((s) => [s.name, s.parentId === null ? null : 'child', s.conversationId]),
  }),
);
