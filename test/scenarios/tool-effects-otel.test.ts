// API.md §17 seen by an OpenTelemetry SDK: a turn that pauses on calls in doubt has a
// `baton.tool_calls_in_doubt` event on its `invoke_agent` span, naming the calls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

import { Agent, HandoffBuilder, ScriptedChatClient, tool } from '../../src/index.js';
import { installTestTelemetry, type TestTelemetry } from '../support/otel-sdk.js';

let otel: TestTelemetry;
beforeAll(() => {
  otel = installTestTelemetry();
});
afterAll(() => otel.shutdown());

describe('calls in doubt in the traces', () => {
  it('are an event on the agent span of the turn that pauses', async () => {
    const controller = new AbortController();
    let runs = 0;
    const charge = tool({
      name: 'charge',
      parameters: z.object({}),
      execute: () => {
        runs++;
        controller.abort();
        return new Promise<string>(() => {});
      },
    });
    const client = new ScriptedChatClient([
      { content: null, toolCalls: [{ id: 'c1', name: 'charge', arguments: '{}' }] },
    ]);
    const clerk = new Agent({ name: 'clerk', client, tools: [charge] });
    const shop = new HandoffBuilder({ name: 'shop', participants: [clerk] })
      .coordinator(clerk)
      .build();
    expect((await shop.run('Charge', { signal: controller.signal })).status).toBe('cancelled');
    await otel.clear();
    const paused = await shop.run();
    expect([paused.pendingRequest?.kind, runs]).toEqual(['in_doubt', 1]);
    const span = otel.spans().find((s) => s.name === 'invoke_agent clerk');
    expect(span?.events).toEqual([
      {
        name: 'baton.tool_calls_in_doubt',
        attributes: { 'baton.tool_calls.ids': 'c1', 'baton.tool_calls.names': 'charge' },
      },
    ]);
  });
});
