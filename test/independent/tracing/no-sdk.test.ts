// Independent black-box tests of API.md §11 with no OpenTelemetry SDK registered (issue 16):
// runs work unchanged and nothing is recorded.
import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  HandoffBuilder,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  tool,
} from '../../../src/index.js';
import { startSdk } from './otel.js';

describe('with no OpenTelemetry SDK registered', () => {
  it('a handoff desk with a tool runs as usual and nothing records spans', async () => {
    const seen: (boolean | undefined)[] = [];
    const lookup = tool({
      name: 'lookup_invoice',
      description: 'Looks an invoice up.',
      parameters: z.object({ invoiceId: z.string() }),
      execute: async ({ invoiceId }) => {
        seen.push(trace.getActiveSpan()?.isRecording());
        return `${invoiceId} is paid.`;
      },
    });
    const triage = new Agent({
      name: 'triage',
      client: new ScriptedChatClient([scriptedToolCall('handoff_to_billing', {}, 'h1')], {
        model: 'm',
      }),
    });
    const billing = new Agent({
      name: 'billing',
      tools: [lookup],
      maxToolIterations: 2,
      client: new ScriptedChatClient(
        [
          scriptedToolCall('lookup_invoice', { invoiceId: 'INV-1' }, 'c1'),
          scriptedText('INV-1 is paid.', { promptTokens: 4, completionTokens: 3 }),
        ],
        { model: 'm' },
      ),
    });
    const wf = new HandoffBuilder({ name: 'support', participants: [triage, billing] })
      .coordinator(triage)
      .build();
    const result = await wf.session('plain').run('Is INV-1 paid?');
    expect(result.status).toBe('awaiting_input');
    expect(result.pendingRequest?.agent).toBe('billing');
    expect(result.pendingRequest?.prompt).toBe('INV-1 is paid.');
    expect(result.usage).toEqual({ promptTokens: 4, completionTokens: 3 });
    expect(result.messages.map((m) => m.type)).toEqual([
      'TextMessage',
      'ToolCallRequestEvent',
      'ToolCallExecutionEvent',
      'HandoffMessage',
      'ToolCallRequestEvent',
      'ToolCallExecutionEvent',
      'TextMessage',
      'UserInputRequestedEvent',
    ]);
    // No recording span was ever active around the tool.
    expect(seen).toHaveLength(1);
    expect(seen[0] === undefined || seen[0] === false).toBe(true);

    // An SDK registered afterwards receives nothing from the earlier run (nothing was buffered).
    const sdk = startSdk();
    try {
      await sdk.reader.forceFlush();
      expect(sdk.spans()).toEqual([]);
      const h = await sdk.histograms();
      expect([...h.values()].flatMap((m) => m.dataPoints)).toEqual([]);
    } finally {
      await sdk.stop();
    }
  });
});
