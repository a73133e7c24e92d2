// The workflow whose step logs test/fixtures/step-log-v1.json (format 1, written before the compact
// step records, session 3) and step-log-v2.json (format 2) hold: a coordinator that hands off to
// billing, which asks the user.
import type { MemoryCheckpointStore } from '../../src/index.js';
import {
  Agent,
  HandoffBuilder,
  type HandoffWorkflow,
  ScriptedChatClient,
  scriptedToolCall,
} from '../../src/index.js';

export function recordFormatDesk(store: MemoryCheckpointStore): HandoffWorkflow {
  const triage = new Agent({
    name: 'triage',
    handoffs: ['billing'],
    client: new ScriptedChatClient([
      scriptedToolCall('handoff_to_billing', {}, 'call-1'),
      scriptedToolCall('handoff_to_billing', {}, 'call-2'),
    ]),
  });
  const billing = new Agent({
    name: 'billing',
    handoffs: ['triage'],
    client: new ScriptedChatClient([{ content: 'Which invoice?' }, { content: 'INV-1 refunded.' }]),
  });
  return new HandoffBuilder({ name: 'record-format', participants: [triage, billing] })
    .coordinator(triage)
    .withCheckpointing(store)
    .build();
}
