// Issue 27 #12: a guardrail's `info` that JSON cannot hold (a database row with a BigInt, a
// null-prototype object) still stops the run as tripped, with a readable event.
import { describe, expect, it } from 'vitest';

import {
  Agent,
  guardrail,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  scriptedText,
} from '../../src/index.js';
import { lines } from './approvals-helpers.js';

/** A row as a database driver may give it: no prototype, a BigInt id. */
function row(): Record<string, unknown> {
  const r = Object.create(null) as Record<string, unknown>;
  r.id = 9007199254740993n;
  r.table = 'customers';
  return r;
}

const blocksRows = guardrail({
  name: 'no_customer_rows',
  check: ({ text }) =>
    text.includes('customer') ? { tripwire: true, info: row() } : { tripwire: false },
});

function desk(side: 'input' | 'output') {
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient([scriptedText('Here is the customer row.')]),
  });
  return new HandoffBuilder({ name: 'desk', participants: [triage] })
    .coordinator(triage)
    .withGuardrails({ [side]: [blocksRows] })
    .withCheckpointing(new MemoryCheckpointStore())
    .build();
}

describe('a tripped guardrail whose info is not JSON', () => {
  it.each(['input', 'output'] as const)(
    'on %s stops the run as tripped, with the info as readable text',
    async (side) => {
      const workflow = desk(side);
      const result = await workflow.run(side === 'input' ? 'show customer 7' : 'show the row');
      expect(result.status).toBe('terminated');
      expect(result.stopReason).toBe('Guardrail "no_customer_rows" tripped');
      const event = '{"id":"9007199254740993","table":"customers"}';
      expect(lines(result.messages).at(-1)).toBe(
        `GuardrailTrippedEvent(no_customer_rows): ${event}`,
      );
      expect(lines(await workflow.session('default').messages()).at(-1)).toBe(
        `GuardrailTrippedEvent(no_customer_rows): ${event}`,
      );
    },
  );
});
