// Independent suite for API.md §24, the brief as the handoff tools' parameters: per handoff, per
// coordinator and as the workflow's default; checked, with another try for the model when it
// fails or names a tool that does not exist; `ctx.handoff` in instructions, tools and guards;
// `history: "brief"`. Written from API.md §24 (with §4, §6 and §18) alone. Readings where the
// page is open:
// - the default brief `{ reason: string }` shows as a `reason` string parameter;
// - "another try in the same turn": the same agent's model is called again before anyone else
//   speaks, and the turn ends as the second answer says;
// - what the customer is asked is `pendingRequest.prompt` (and the UserInputRequestedEvent).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  type AgentMessage,
  HandoffBuilder,
  type ModelRequest,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  tool,
} from '../../../src/index.js';

const Invoice = z.object({ reason: z.string(), invoiceId: z.string() });

function agent(name: string, steps: Parameters<typeof scriptedText>[0][] | ScriptedChatClient) {
  const client =
    steps instanceof ScriptedChatClient
      ? steps
      : new ScriptedChatClient(steps.map((s) => scriptedText(s)));
  return { agent: new Agent({ name, client }), client };
}

const toolNamed = (request: ModelRequest | undefined, name: string) =>
  request?.tools?.find((t) => t.name === name);

const asked = (messages: readonly AgentMessage[]) =>
  messages.flatMap((m) => (m.type === 'UserInputRequestedEvent' ? [m.content] : []));

describe('§24 the brief is the handoff tool’s parameters', () => {
  it('takes the fields of addHandoff’s brief', async () => {
    const triage = new ScriptedChatClient([scriptedText('hello')]);
    const desk = new HandoffBuilder({
      participants: [new Agent({ name: 'triage', client: triage }), agent('billing', []).agent],
    })
      .coordinator('triage')
      .addHandoff('triage', ['billing'], { brief: Invoice })
      .build();
    await desk.run('hi');
    const parameters = toolNamed(triage.calls[0], 'handoff_to_billing')?.parameters as {
      properties: Record<string, { type: string }>;
      required: string[];
    };
    expect(parameters.properties).toEqual({
      reason: { type: 'string' },
      invoiceId: { type: 'string' },
    });
    expect([...parameters.required].sort()).toEqual(['invoiceId', 'reason']);
  });

  it('defaults to a reason, takes the coordinator’s brief, and none with handoffBrief: false', async () => {
    const run = async (options: { handoffBrief?: false; coordinator?: z.ZodObject }) => {
      const triage = new ScriptedChatClient([scriptedText('hello')]);
      const builder = new HandoffBuilder({
        participants: [new Agent({ name: 'triage', client: triage }), agent('billing', []).agent],
        ...(options.handoffBrief === undefined ? {} : { handoffBrief: options.handoffBrief }),
      });
      const desk = (
        options.coordinator === undefined
          ? builder.coordinator('triage')
          : builder.coordinator('triage', { brief: options.coordinator })
      ).build();
      await desk.run('hi');
      const parameters = toolNamed(triage.calls[0], 'handoff_to_billing')?.parameters as {
        properties?: Record<string, { type: string }>;
      };
      return Object.keys(parameters.properties ?? {});
    };
    expect(await run({})).toEqual(['reason']);
    expect((await run({ coordinator: Invoice })).sort()).toEqual(['invoiceId', 'reason']);
    expect(await run({ handoffBrief: false })).toEqual([]);
  });
});

describe('§24 a failing brief or an unknown tool gets the model another try', () => {
  const desk = (first: ReturnType<typeof scriptedToolCall>) => {
    const triage = new ScriptedChatClient([
      first,
      scriptedToolCall('handoff_to_billing', { reason: 'double charge', invoiceId: 'INV-3' }),
    ]);
    const billing = new ScriptedChatClient([scriptedText('Which charge should I refund?')]);
    const workflow = new HandoffBuilder({
      participants: [
        new Agent({ name: 'triage', client: triage }),
        new Agent({ name: 'billing', client: billing }),
      ],
    })
      .coordinator('triage')
      .addHandoff('triage', ['billing'], { brief: Invoice })
      .build();
    return { workflow, triage, billing };
  };

  it('answers a brief missing a field with an error naming it, then hands off on the second try', async () => {
    const { workflow, triage } = desk(
      scriptedToolCall('handoff_to_billing', { reason: 'double charge' }, 'call-a'),
    );
    const result = await workflow.run('I was charged twice');
    const results = result.messages.flatMap((m) =>
      m.type === 'ToolCallExecutionEvent' ? m.content : [],
    );
    expect(results[0]).toMatchObject({ callId: 'call-a', isError: true });
    expect(results[0]?.content).toContain('invoiceId');
    expect(triage.calls).toHaveLength(2);
    const handoffs = result.messages.filter((m) => m.type === 'HandoffMessage');
    expect(handoffs).toHaveLength(1);
    expect(handoffs[0]).toMatchObject({
      target: 'billing',
      brief: { reason: 'double charge', invoiceId: 'INV-3' },
    });
    expect(result.pendingRequest).toMatchObject({
      agent: 'billing',
      prompt: 'Which charge should I refund?',
    });
    expect(asked(result.messages)).toEqual(['Which charge should I refund?']);
  });

  it('never asks the customer the error of handoff_to_biling', async () => {
    const { workflow, triage } = desk(scriptedToolCall('handoff_to_biling', { reason: 'x' }));
    const result = await workflow.run('I was charged twice');
    expect(triage.calls).toHaveLength(2);
    expect(result.pendingRequest?.agent).toBe('billing');
    expect(result.pendingRequest?.prompt).toBe('Which charge should I refund?');
    expect(asked(result.messages).join('\n')).not.toMatch(/handoff_to_biling|Unknown/i);
  });
});

describe('§24 ctx.handoff for the target', () => {
  it('is { from, brief } in instructions(ctx), tools and when guards, until the next handoff', async () => {
    const seen: string[] = [];
    const check = tool({
      name: 'check_invoice',
      parameters: z.object({}),
      execute: (_args, ctx) => {
        seen.push(`tool ${JSON.stringify(ctx.handoff)}`);
        return 'ok';
      },
    });
    const billing = new Agent({
      name: 'billing',
      tools: [check],
      maxToolIterations: 2,
      instructions: (ctx) => {
        seen.push(`instructions ${JSON.stringify(ctx.handoff)}`);
        return 'billing';
      },
      client: new ScriptedChatClient([
        scriptedToolCall('check_invoice', {}),
        scriptedText('Checked.'),
        scriptedText('Still here.'),
      ]),
    });
    const triage = new Agent({
      name: 'triage',
      instructions: (ctx) => {
        seen.push(`triage ${JSON.stringify(ctx.handoff ?? null)}`);
        return 'triage';
      },
      client: new ScriptedChatClient([
        scriptedToolCall('handoff_to_billing', { reason: 'r', invoiceId: 'INV-9' }),
        scriptedText('Back at triage.'),
      ]),
    });
    const desk = new HandoffBuilder({ participants: [triage, billing] })
      .coordinator(triage)
      .addHandoff(triage, [billing], { brief: Invoice })
      .addHandoff(billing, [triage], {
        when: function guardSees(_state, ctx) {
          seen.push(`guard ${JSON.stringify(ctx.handoff)}`);
          return true;
        },
      })
      .withUserReplyRouting('last_agent')
      .build();
    const session = desk.session('ctx-1');
    await session.run('charged twice');
    await session.run('thanks');
    const handoff = JSON.stringify({ from: 'triage', brief: { reason: 'r', invoiceId: 'INV-9' } });
    expect(seen[0]).toBe('triage null');
    expect(new Set(seen.slice(1))).toEqual(
      new Set([`instructions ${handoff}`, `tool ${handoff}`, `guard ${handoff}`]),
    );
  });
});

describe('§24 history: "brief"', () => {
  it('gives the target the customer’s own messages and the brief instead of other agents’ turns', async () => {
    const billing = new ScriptedChatClient([scriptedText('Refund coming.')]);
    const desk = new HandoffBuilder({
      participants: [
        new Agent({
          name: 'triage',
          client: new ScriptedChatClient([
            scriptedText('TRIAGE-CHATTER: which invoice?'),
            scriptedToolCall('handoff_to_billing', { reason: 'refund INV-5', invoiceId: 'INV-5' }),
          ]),
        }),
        new Agent({ name: 'billing', client: billing }),
      ],
    })
      .coordinator('triage')
      .addHandoff('triage', ['billing'], { brief: Invoice, history: 'brief' })
      .build();
    await desk.run('Refund please');
    await desk.run('INV-5');
    const text = JSON.stringify(billing.calls[0]?.messages);
    expect(text).toContain('Refund please');
    expect(text).toContain('INV-5');
    expect(text).toContain('refund INV-5');
    expect(text).not.toContain('TRIAGE-CHATTER');
  });
});
