// API.md §26: `serve(workflow, { budgets: { perTenantPerDayUsd } })`. A tenant's cap for the day
// is shared by its sessions; the run that would exceed it pauses with a "budget" request, while
// another tenant goes on.
import { describe, expect, it } from 'vitest';

import {
  Agent,
  CostTermination,
  HandoffBuilder,
  MemoryCheckpointStore,
  ScriptedChatClient,
  scriptedText,
  serve,
} from '../../../src/index.js';

const PRICES = { 'gpt-4.1-mini': { inputPerMillion: 0, outputPerMillion: 100 } };

function desk() {
  const client = new ScriptedChatClient(
    Array.from({ length: 10 }, (_, i) =>
      scriptedText(`reply ${i + 1}`, { promptTokens: 20, completionTokens: 1000 }),
    ),
    { model: 'gpt-4.1-mini' },
  );
  const workflow = new HandoffBuilder({ participants: [new Agent({ name: 'support', client })] })
    .coordinator('support')
    .withCheckpointing(new MemoryCheckpointStore())
    // The sessions' own budgets are generous: only the tenant's cap binds.
    .withTerminationCondition(
      new CostTermination({ maxUsd: 50, prices: PRICES, reserveOutputTokens: 1000 }),
    )
    .build();
  return { workflow, client };
}

const principals: Record<string, { id: string }> = {
  'Bearer token-a': { id: 'tenant-a' },
  'Bearer token-b': { id: 'tenant-b' },
};

describe('§26 per-tenant daily caps', () => {
  it('pauses the run that would exceed its tenant’s cap with a "budget" request', async () => {
    const { workflow, client } = desk();
    const handler = serve(workflow, {
      authenticate: (request) => principals[request.headers.get('authorization') ?? ''] ?? null,
      budgets: { perTenantPerDayUsd: 0.25 },
    });
    const post = async (token: string, path: string, body: unknown) => {
      const response = await handler.fetch(
        new Request(`http://desk.test${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
      return (await response.json()) as {
        id?: string;
        status?: string;
        pendingRequest?: { kind: string; id: string };
      };
    };
    const a1 = (await post('token-a', '/sessions', {})).id ?? '';
    const a2 = (await post('token-a', '/sessions', {})).id ?? '';
    const b1 = (await post('token-b', '/sessions', {})).id ?? '';
    // Each call costs (and reserves) $0.10: tenant-a's $0.25 allows two.
    expect(
      (await post('token-a', `/sessions/${a1}/runs`, { input: 'hi' })).pendingRequest?.kind,
    ).toBe('input');
    expect(
      (await post('token-a', `/sessions/${a2}/runs`, { input: 'hi' })).pendingRequest?.kind,
    ).toBe('input');
    const third = await post('token-a', `/sessions/${a1}/runs`, { input: 'again' });
    expect(third.status).toBe('awaiting_input');
    expect(third.pendingRequest?.kind).toBe('budget');
    expect(client.calls).toHaveLength(2);
    expect(
      (await post('token-b', `/sessions/${b1}/runs`, { input: 'hi' })).pendingRequest?.kind,
    ).toBe('input');
    expect(client.calls).toHaveLength(3);
    await handler.close();
  });
});
