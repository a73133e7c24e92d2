// The workflow whose step log test/fixtures/step-log-v1.json holds (written by Baton before the
// compact step records, session 3): a coordinator that hands off to billing, which asks the user.
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
