// The workflows whose logs the format fixtures hold: a coordinator that hands off to billing, which
// asks the user, run twice. test/fixtures/step-log-v1.json (step records of format 1, written before
// the compact records, session 3) and step-log-v2.json (format 2) hold `recordFormatDesk`'s;
// test/fixtures/file-log-v1.log (FileCheckpointStore's first line format, one JSON object per line,
// before issue 19) holds `fileLogDesk`'s. Their names and answers are part of the fixtures.
import {
  Agent,
  type CheckpointStore,
  HandoffBuilder,
  type HandoffWorkflow,
  ScriptedChatClient,
  scriptedToolCall,
} from '../../src/index.js';

function pausingDesk(
  name: string,
  billingAnswers: readonly [string, string],
  store: CheckpointStore,
): HandoffWorkflow {
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
    client: new ScriptedChatClient(billingAnswers.map((content) => ({ content }))),
  });
  return new HandoffBuilder({ name, participants: [triage, billing] })
    .coordinator(triage)
    .withCheckpointing(store)
    .build();
}

export function recordFormatDesk(store: CheckpointStore): HandoffWorkflow {
  return pausingDesk('record-format', ['Which invoice?', 'INV-1 refunded.'], store);
}

export function fileLogDesk(store: CheckpointStore): HandoffWorkflow {
  return pausingDesk(
    'file-log',
    ['Which "invoice"? Give me its number, e.g. INV-1.', 'INV-1 is refunded. Anything else?'],
    store,
  );
}

/** What each run adds to the thread, as `type source`. */
const ONE_RUN = [
  'TextMessage user',
  'ToolCallRequestEvent triage',
  'ToolCallExecutionEvent triage',
  'HandoffMessage triage',
  'TextMessage billing',
  'UserInputRequestedEvent billing',
];

/** The thread after both runs, as `type source`. */
export const THREAD_AFTER_TWO_RUNS = [...ONE_RUN, ...ONE_RUN];

/** The step log after both runs, as `step event`. */
export const STEPS_AFTER_TWO_RUNS = [
  '1 user_input',
  '2 agent_response:triage',
  '3 agent_response:billing',
  '4 user_input',
  '5 agent_response:triage',
  '6 agent_response:billing',
];
