// Issue 46 (API.md §24): the brief a handoff carries — the generated tool's parameters, checked,
// recorded on the HandoffMessage, shown to the target, and `ctx.handoff` for its instructions,
// tools and guards until the next handoff; after a restart too, and in recordings.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  FileCheckpointStore,
  type HandoffMessage,
  HandoffBuilder,
  type ModelRequest,
  replay,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  Swarm,
  HandoffTermination,
} from '../../src/index.js';
import { briefDesk, InvoiceBrief, TRIAGE_BRIEF } from '../support/brief-desk.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const handoffs = (messages: readonly { type: string }[]) =>
  messages.filter((m): m is HandoffMessage => m.type === 'HandoffMessage');

describe('a handoff brief', () => {
  it('is the handoff tool’s parameters, recorded on the HandoffMessage and read by the target', async () => {
    const requests: { agent: string; request: ModelRequest }[] = [];
    const desk = briefDesk({ requests });
    const result = await desk.session('s1').run('I was charged twice');

    const offered = requests[0]?.request.tools?.find((t) => t.name === 'handoff_to_billing');
    expect(offered?.parameters).toEqual({
      type: 'object',
      properties: { reason: { type: 'string' }, invoiceId: { type: 'string' } },
      required: ['reason', 'invoiceId'],
    });
    expect(handoffs(result.messages).map((m) => [m.source, m.target, m.brief])).toEqual([
      ['triage', 'billing', TRIAGE_BRIEF],
    ]);
    // Billing's instructions and its tool read ctx.handoff; its model sees the brief in the hop.
    const first = requests.find((r) => r.agent === 'billing')?.request;
    expect(first?.messages[0]).toEqual({
      role: 'system',
      content: 'You handle billing. Handed over by triage for invoice INV-7 (charged twice).',
    });
    expect(first?.messages).toContainEqual({
      role: 'user',
      content:
        '[handoff from triage to billing]: Transferred to billing, adopting the role of billing ' +
        'immediately.\nBrief: {"reason":"charged twice","invoiceId":"INV-7"}',
    });
    expect(result.pendingRequest?.prompt).toBe('INV-7: $49.00, charged twice. Shall I refund one?');
  });

  it('stays the target’s ctx.handoff across a restart, read from the stored thread', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'baton-briefs-'));
    dirs.push(dir);
    await briefDesk({ store: new FileCheckpointStore(dir) })
      .session('s2')
      .run('charged twice');

    // A fresh workflow on the same directory: another process, nothing in memory.
    const requests: { agent: string; request: ModelRequest }[] = [];
    const again = briefDesk({ store: new FileCheckpointStore(dir), requests });
    const session = again.session('s2');
    expect(handoffs(await session.messages()).map((m) => m.brief)).toEqual([TRIAGE_BRIEF]);
    const reply = await session.run('yes');
    expect(reply.pendingRequest?.prompt).toBe('Refunded one charge (INV-7).');
    expect(requests.map((r) => [r.agent, r.request.messages[0]?.content])).toEqual([
      ['billing', 'You handle billing. Handed over by triage for invoice INV-7 (charged twice).'],
    ]);
  });

  it('is in the recording, which replays ok, and a changed brief is a handoff_brief divergence', async () => {
    const session = briefDesk().session('s3');
    await session.run('charged twice');
    await session.run('yes');
    const recording = await session.record();
    expect(recording.turns.map((t) => [t.agent, t.handoff ?? null, t.brief ?? null])).toEqual([
      ['triage', 'billing', TRIAGE_BRIEF],
      ['billing', null, null],
      ['billing', null, null],
    ]);
    expect(await replay(briefDesk(), recording)).toEqual({ ok: true, turns: 3 });
    // A recording's redaction reaches the brief's strings too.
    const redacted = await session.record({ redact: (text) => text.replace(/INV-\d+/g, 'INV-?') });
    expect(redacted.turns[0]?.brief).toEqual({ reason: 'charged twice', invoiceId: 'INV-?' });

    // The brief's schema dropped a field: the handoff happens with another brief.
    const narrower = await replay(
      briefDesk({ brief: z.object({ reason: z.string() }) }),
      recording,
    );
    expect(narrower).toEqual({
      ok: false,
      turns: 1,
      divergence: {
        turn: 1,
        agent: 'triage',
        what: 'handoff_brief',
        expected: TRIAGE_BRIEF,
        actual: { reason: 'charged twice' },
      },
    });
    // The brief's schema wants a field the recorded model never gave: the handoff is refused.
    const wider = await replay(
      briefDesk({ brief: InvoiceBrief.extend({ priority: z.enum(['low', 'high']) }) }),
      recording,
    );
    expect(wider.divergence).toMatchObject({ turn: 1, agent: 'triage', what: 'handoff_brief' });
    expect(wider.divergence?.actual).toContain('priority');
  });

  it.each([
    {
      what: 'a brief missing a required field',
      wrong: scriptedToolCall('handoff_to_billing', { reason: 'charged twice' }, 'wrong'),
      error: {
        callId: 'wrong',
        name: 'handoff_to_billing',
        content:
          'Handoff to "billing" was not made: the brief is invalid at invoiceId: Invalid input: ' +
          'expected string, received undefined. Call handoff_to_billing again with `invoiceId` fixed.',
        isError: true,
      },
    },
    {
      what: 'a mistyped handoff',
      wrong: scriptedToolCall('handoff_to_biling', TRIAGE_BRIEF, 'wrong'),
      error: {
        callId: 'wrong',
        name: 'handoff_to_biling',
        content: 'Unknown tool "handoff_to_biling". Available tools: handoff_to_billing.',
        isError: true,
      },
    },
  ])(
    'after $what, the model’s second try hands off; the customer never sees the error',
    async ({ wrong, error }) => {
      const requests: { agent: string; request: ModelRequest }[] = [];
      const desk = briefDesk({
        requests,
        triage: [wrong, scriptedToolCall('handoff_to_billing', TRIAGE_BRIEF, 'right')],
      });
      const result = await desk.session('s4').run('I was charged twice');

      const errors = result.messages.flatMap((m) =>
        m.type === 'ToolCallExecutionEvent' ? m.content.filter((r) => r.isError) : [],
      );
      expect(errors).toEqual([error]);
      expect(handoffs(result.messages).map((m) => m.brief)).toEqual([TRIAGE_BRIEF]);
      expect(result.pendingRequest).toMatchObject({
        agent: 'billing',
        prompt: 'INV-7: $49.00, charged twice. Shall I refund one?',
      });
      // Triage has the default maxToolIterations (1), and its second model call saw the error.
      const triage = requests.filter((r) => r.agent === 'triage');
      expect(triage).toHaveLength(2);
      expect(triage[1]?.request.messages.at(-1)).toEqual({
        role: 'tool',
        toolCallId: 'wrong',
        content: error.content,
      });
    },
  );

  it('gives the second try’s call an id of its own when the model repeats one', async () => {
    const desk = briefDesk({
      triage: [
        scriptedToolCall('handoff_to_biling', TRIAGE_BRIEF, 'same'),
        scriptedToolCall('handoff_to_billing', TRIAGE_BRIEF, 'same'),
      ],
    });
    const result = await desk.session('s6').run('I was charged twice');
    const ids = result.messages.flatMap((m) =>
      m.type === 'ToolCallRequestEvent' && m.source === 'triage' ? m.content.map((c) => c.id) : [],
    );
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe('same');
    expect(ids[1]).not.toBe('same');
    expect(result.pendingRequest?.agent).toBe('billing');
  });

  it('never makes a mistyped handoff the customer’s question, even when the retry fails too', async () => {
    const desk = briefDesk({
      triage: [
        scriptedToolCall('handoff_to_biling', TRIAGE_BRIEF),
        scriptedToolCall('handoff_to_bill', TRIAGE_BRIEF),
      ],
    });
    const result = await desk.session('s5').run('I was charged twice');
    expect(result.pendingRequest?.agent).toBe('triage');
    expect(result.pendingRequest?.prompt).toBe('');
    expect(JSON.stringify(result.pendingRequest)).not.toContain('Unknown tool');
  });
});

describe('history: "brief"', () => {
  it('shows the target the customer’s messages and the brief instead of the other agents’ turns', async () => {
    const seen: ModelRequest[] = [];
    const triage = new Agent({
      name: 'triage',
      client: new ScriptedChatClient([
        scriptedText('Which invoice?'),
        scriptedToolCall('handoff_to_billing', { reason: 'double charge on INV-7' }),
      ]),
    });
    const billing = new Agent({
      name: 'billing',
      client: new ScriptedChatClient((request) => {
        seen.push(request);
        return scriptedText('On it.');
      }),
    });
    const desk = new HandoffBuilder({ participants: [triage, billing] })
      .coordinator(triage)
      .addHandoff(triage, [billing], { history: 'brief' })
      .build();
    const session = desk.session('h1');
    await session.run('I was charged twice');
    await session.run('INV-7');
    expect(seen[0]?.messages).toEqual([
      { role: 'user', content: 'I was charged twice' },
      { role: 'user', content: 'INV-7' },
      {
        role: 'user',
        content:
          '[handoff from triage to billing]: Transferred to billing, adopting the role of ' +
          'billing immediately.\nBrief: {"reason":"double charge on INV-7"}',
      },
    ]);
  });
});

describe('ctx.handoff in when guards, and Swarm’s handoffBrief', () => {
  it('offers a handoff while the guard, reading the brief, holds', async () => {
    const billing = new Agent({
      name: 'billing',
      client: new ScriptedChatClient((request) =>
        request.tools?.some((t) => t.name === 'handoff_to_refunds')
          ? scriptedToolCall('handoff_to_refunds', { reason: 'full refund' })
          : scriptedText('No refund for this one.'),
      ),
    });
    const refunds = new Agent({
      name: 'refunds',
      client: new ScriptedChatClient([scriptedText('Refunded.')]),
    });
    const desk = (invoiceId: string | undefined) =>
      new HandoffBuilder({ participants: [briefTriage(invoiceId), billing, refunds] })
        .coordinator('triage')
        .addHandoff('triage', ['billing'], { brief: InvoiceBrief.partial() })
        .addHandoff('billing', ['refunds'], {
          when: function hasInvoice(_state, ctx) {
            return (ctx.handoff?.brief as { invoiceId?: string }).invoiceId !== undefined;
          },
        })
        .build();
    expect((await desk('INV-7').run('refund')).pendingRequest?.agent).toBe('refunds');
    expect((await desk(undefined).run('refund')).pendingRequest).toMatchObject({
      agent: 'billing',
      prompt: 'No refund for this one.',
    });
  });

  it('gives a Swarm’s own handoffs the team’s brief', async () => {
    const Note = z.object({ note: z.string() });
    const alice = new Agent({
      name: 'alice',
      handoffs: ['bob'],
      client: new ScriptedChatClient([scriptedToolCall('handoff_to_bob', { note: 'over to you' })]),
    });
    const bob = new Agent({
      name: 'bob',
      handoffs: ['user'],
      instructions: (ctx) =>
        `Note from ${ctx.handoff?.from}: ${(ctx.handoff?.brief as z.infer<typeof Note>).note}`,
      client: new ScriptedChatClient((request) =>
        scriptedToolCall('handoff_to_user', { note: String(request.messages[0]?.content) }),
      ),
    });
    const team = new Swarm([alice, bob], {
      handoffBrief: Note,
      terminationCondition: new HandoffTermination('user'),
    });
    const result = await team.run('hi');
    expect(handoffs(result.messages).map((m) => [m.target, m.brief])).toEqual([
      ['bob', { note: 'over to you' }],
      ['user', { note: 'Note from alice: over to you' }],
    ]);
  });
});

function briefTriage(invoiceId: string | undefined): Agent {
  return new Agent({
    name: 'triage',
    client: new ScriptedChatClient(() =>
      scriptedToolCall('handoff_to_billing', { reason: 'refund', invoiceId }),
    ),
  });
}

describe('brief options that cannot work', () => {
  it('are ConfigErrors naming the method and the fix', () => {
    const builder = () =>
      new HandoffBuilder({
        participants: [new Agent({ name: 'a', client: new ScriptedChatClient([]) })],
      });
    expect(() =>
      builder().addHandoff('a', [], { brief: { reason: 'string' } as unknown as z.ZodObject }),
    ).toThrowErrorMatchingInlineSnapshot(
      `[ConfigError: addHandoff("a", ...): \`brief\` must be a zod object schema such as z.object({ reason: z.string() }).]`,
    );
    expect(() =>
      builder().coordinator('a', { history: 'short' as unknown as 'brief' }),
    ).toThrowErrorMatchingInlineSnapshot(
      `[ConfigError: coordinator(): history must be "full" or "brief", got "short".]`,
    );
    expect(
      () =>
        new HandoffBuilder({
          participants: [],
          handoffBrief: z.string() as unknown as z.ZodObject,
        }),
    ).toThrowErrorMatchingInlineSnapshot(
      `[ConfigError: HandoffBuilder: handoffBrief: \`brief\` must be a zod object schema such as z.object({ reason: z.string() }).]`,
    );
  });
});
