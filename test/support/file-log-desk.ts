// The workflow whose log test/fixtures/file-log-v1.log holds (written by FileCheckpointStore in its
// first line format, one JSON object per line, before issue 19): a coordinator that hands off to
// billing, which asks the user.
import {
  Agent,
  type CheckpointStore,
  HandoffBuilder,
  type HandoffWorkflow,
  ScriptedChatClient,
  scriptedToolCall,
} from '../../src/index.js';

export function fileLogDesk(store: CheckpointStore): HandoffWorkflow {
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
    client: new ScriptedChatClient([
      { content: 'Which "invoice"? Give me its number, e.g. INV-1.' },
      { content: 'INV-1 is refunded. Anything else?' },
    ]),
  });
  return new HandoffBuilder({ name: 'file-log', participants: [triage, billing] })
    .coordinator(triage)
    .withCheckpointing(store)
    .build();
}
