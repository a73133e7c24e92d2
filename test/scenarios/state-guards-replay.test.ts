// Issue 32 (API.md §18): `when` guards on handoffs, the state seen by guardrails and selector
// functions, and state patches in step records (replayed, or refused by name when forged).
import { crc32 } from 'node:zlib';

import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  CheckpointError,
  type CheckpointRecord,
  ConfigError,
  guardrail,
  HandoffBuilder,
  MemoryCheckpointStore,
  type ModelRequest,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  SelectorGroupChat,
  tool,
} from '../../src/index.js';

const Desk = z.object({ customerId: z.string().nullable(), verified: z.boolean() });
const INITIAL = { customerId: null, verified: false };

const verify = tool({
  name: 'verify_customer',
  parameters: z.object({ customerId: z.string() }),
  execute: ({ customerId }, ctx) => {
    ctx.updateState((draft) => {
      draft.customerId = customerId;
      draft.verified = true;
    });
    return 'verified';
  },
});

/** Triage → billing → refunds, the last hop guarded by `when`. */
function desk(when: (state: Record<string, unknown>) => boolean, store?: MemoryCheckpointStore) {
  const requests: ModelRequest[] = [];
  const billingClient = new ScriptedChatClient((request, i) => {
    requests.push(request);
    return (
      [
        // Forged: refunds is not offered yet.
        scriptedToolCall('handoff_to_refunds', {}, 'forged'),
        scriptedToolCall('verify_customer', { customerId: 'C-42' }),
        scriptedToolCall('handoff_to_refunds'),
      ][i] ?? scriptedText('no more')
    );
  });
  const triage = new Agent({
    name: 'triage',
    client: new ScriptedChatClient([scriptedToolCall('handoff_to_billing')]),
  });
  const billing = new Agent({
    name: 'billing',
    client: billingClient,
    tools: [verify],
    maxToolIterations: 3,
  });
  const refunds = new Agent({
    name: 'refunds',
    client: new ScriptedChatClient([scriptedText('Refunded.')]),
    instructions: ({ state }) => `Refund for ${String(state.customerId)}.`,
  });
  let builder = new HandoffBuilder({
    name: 'desk',
    participants: [triage, billing, refunds],
    state: { schema: Desk, initial: INITIAL },
  })
    .coordinator(triage)
    .addHandoff(billing, [refunds], { when });
  if (store !== undefined) builder = builder.withCheckpointing(store);
  return { workflow: builder.build(), requests };
}

describe('when guards', () => {
  it('offer the handoff only while the guard holds; a forged call is an error result', async () => {
    const { workflow, requests } = desk(function isVerified(state) {
      return state.verified === true;
    });
    const result = await workflow.run('Refund please');
    expect(requests.map((r) => (r.tools ?? []).map((t) => t.name))).toEqual([
      ['verify_customer'],
      ['verify_customer'],
      ['verify_customer', 'handoff_to_refunds'],
    ]);
    const forged = requests[1]?.messages.find((m) => m.role === 'tool');
    expect(forged).toEqual({
      role: 'tool',
      toolCallId: 'forged',
      content: 'Unknown tool "handoff_to_refunds". Available tools: verify_customer.',
    });
    expect(result.messages.map((m) => `${m.type}(${m.source})`).slice(-4)).toEqual([
      'ToolCallExecutionEvent(billing)',
      'HandoffMessage(billing)',
      'TextMessage(refunds)',
      'UserInputRequestedEvent(refunds)',
    ]);
    expect(await workflow.session('default').state()).toEqual({
      customerId: 'C-42',
      verified: true,
    });
  });

  it('are named guards of the compiled machine, drawn by toMermaid()', () => {
    const named = desk(function isVerified(state) {
      return state.verified === true;
    }).workflow;
    expect(named.toMermaid()).toContain('n_billing -->|handoff_to_refunds [isVerified]| n_refunds');
    const transition = named.machine.root.states.billing?.transitions.get('handoff.refunds');
    expect(transition?.[0]?.guard).toBe('isVerified');
    const anonymous = desk((state) => state.verified === true).workflow;
    expect(anonymous.toMermaid()).toContain(
      'n_billing -->|handoff_to_refunds [when_billing_refunds]| n_refunds',
    );
  });

  it('a when that is not a function is a ConfigError', () => {
    const builder = new HandoffBuilder({
      participants: [new Agent({ name: 'a', client: new ScriptedChatClient([]) })],
    });
    const error = (() => {
      try {
        builder.addHandoff('a', ['b'], { when: true as unknown as () => boolean });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      'addHandoff("a", ...): when must be a function (state) => boolean, got true.',
    );
    expect((error as ConfigError).path).toBe('addHandoff.when');
  });
});

describe('the state is read by', () => {
  it('guardrails (check({ ..., state })) and selector functions (selectorFunc(messages, { state }))', async () => {
    const guardrailSaw: unknown[] = [];
    const selectorSaw: unknown[] = [];
    const marker = tool({
      name: 'mark',
      parameters: z.object({}),
      execute: (_a, ctx) => {
        ctx.updateState((draft) => {
          draft.marks = (typeof draft.marks === 'number' ? draft.marks : 0) + 1;
        });
        return 'marked';
      },
    });
    const worker = new Agent({
      name: 'worker',
      client: new ScriptedChatClient([scriptedToolCall('mark'), scriptedText('done')]),
      tools: [marker],
      maxToolIterations: 2,
    });
    const team = new SelectorGroupChat([worker], {
      selectorFunc: (_messages, { state }) => {
        selectorSaw.push(state);
        return 'worker';
      },
      maxTurns: 1,
      guardrails: {
        input: [
          guardrail({
            name: 'in',
            check: ({ state }) => (guardrailSaw.push(['in', state]), { tripwire: false }),
          }),
        ],
        output: [
          guardrail({
            name: 'out',
            check: ({ state }) => (guardrailSaw.push(['out', state]), { tripwire: false }),
          }),
        ],
      },
    });
    await team.run('go');
    expect(selectorSaw).toEqual([{}]);
    expect(guardrailSaw).toEqual([
      ['in', {}],
      ['out', { marks: 1 }],
    ]);
  });
});

/** The records of `id` copied to a new store, the one at `index` edited by `edit`. */
async function forged(
  store: MemoryCheckpointStore,
  id: string,
  index: number,
  edit: (body: unknown[]) => void,
): Promise<MemoryCheckpointStore> {
  const records = await store.read(id, { from: 'start' });
  const copy = new MemoryCheckpointStore();
  for (const [i, record] of records.entries()) {
    let body = record.data.slice(8);
    if (i === index) {
      const parsed = JSON.parse(body) as unknown[];
      edit(parsed);
      body = JSON.stringify(parsed);
    }
    const seal = crc32(`${id}\n${record.step}\n${body}`).toString(16).padStart(8, '0');
    const sealed: CheckpointRecord = { ...record, data: seal + body };
    expect(await copy.append(id, sealed)).toBe(true);
  }
  return copy;
}

const isVerified = (state: Record<string, unknown>) => state.verified === true;

describe('step records with state patches', () => {
  it('hold the RFC 6902 patch of the step that made it, and replay to the same state', async () => {
    const store = new MemoryCheckpointStore();
    await desk(isVerified, store).workflow.session('r').run('Refund please');
    const records = await store.read('r', { from: 'start' });
    const bodies = records.map((r) => JSON.parse(r.data.slice(8)) as unknown[]);
    const patched = bodies.filter((b) => typeof b[5] === 'object' && b[5] !== null && 'p' in b[5]);
    expect(patched.map((b) => [b[3], (b[5] as { p: unknown }).p])).toEqual([
      [
        '@billing',
        [
          { op: 'replace', path: '/customerId', value: 'C-42' },
          { op: 'replace', path: '/verified', value: true },
        ],
      ],
    ]);
    const again = desk(isVerified, store).workflow.session('r');
    expect(await again.state()).toEqual({ customerId: 'C-42', verified: true });
  });

  // Issue 34: a recording replays each call's updates, so the record says which call made them.
  it('name the call that made each part of the patch (`o`); a malformed `o` is a CheckpointError', async () => {
    const store = new MemoryCheckpointStore();
    const session = desk(isVerified, store).workflow.session('r');
    await session.run('Refund please');
    const verified = (await session.messages()).flatMap((m) =>
      m.type === 'ToolCallExecutionEvent'
        ? m.content.filter((r) => r.name === 'verify_customer')
        : [],
    );
    const records = await store.read('r', { from: 'start' });
    const bodies = records.map((r) => JSON.parse(r.data.slice(8)) as unknown[]);
    const named = bodies.flatMap((b) =>
      typeof b[5] === 'object' && b[5] !== null && 'o' in b[5] ? [(b[5] as { o: unknown }).o] : [],
    );
    expect(named).toEqual([[[verified[0]?.callId, 2]]]);
    // A session that changes no state writes no `o` (nor `p`).
    const plain = new MemoryCheckpointStore();
    await new HandoffBuilder({
      name: 'plain',
      participants: [
        new Agent({
          name: 'triage',
          client: new ScriptedChatClient([scriptedToolCall('handoff_to_billing')]),
        }),
        new Agent({ name: 'billing', client: new ScriptedChatClient([scriptedText('hi')]) }),
      ],
    })
      .coordinator('triage')
      .withCheckpointing(plain)
      .build()
      .session('p')
      .run('hello');
    const plainBodies = (await plain.read('p', { from: 'start' })).map((r) => r.data);
    expect(plainBodies.filter((d) => d.includes('"p":') || d.includes('"o":'))).toEqual([]);

    const index = bodies.findIndex((b) => typeof b[5] === 'object' && b[5] !== null && 'o' in b[5]);
    for (const [o, text] of [
      ['c', 'names the calls of its state patch with "c", which is no list'],
      [[['c', 0]], 'the state patch names its calls with ["c",0], which is no [callId, count]'],
    ] as const) {
      const bad = await forged(store, 'r', index, (body) => {
        body[5] = { ...(body[5] as object), o };
      });
      const error = await desk(isVerified, bad)
        .workflow.session('r')
        .info()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CheckpointError);
      expect((error as Error).message).toContain(text);
    }
  });

  it('a patch that reaches outside the state is a CheckpointError', async () => {
    const store = new MemoryCheckpointStore();
    await desk(isVerified, store).workflow.session('r').run('Refund please');
    const index = (await store.read('r', { from: 'start' })).length - 2;
    const bad = await forged(store, 'r', index, (body) => {
      body[5] = { ...(body[5] as object), p: [{ op: 'replace', path: '/ticket/id', value: 1 }] };
    });
    const error = await desk(isVerified, bad)
      .workflow.session('r')
      .info()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as Error).message).toContain(
      'the state patch replace /ticket/id reaches outside the state',
    );
  });

  // A log whose patches apply but lead to a state the schema refuses: written under this very
  // schema (the snapshot records its digest), every committed update passed it, so the log is
  // damaged (CheckpointError naming the step); under another schema it is an incompatible change,
  // the ConfigError naming the field of "a stored session whose state fails the schema on resume".
  it('a stored state the schema refuses: damage under its own schema, a ConfigError under another', async () => {
    const store = new MemoryCheckpointStore();
    await desk(isVerified, store).workflow.session('r').run('Refund please');
    const records = await store.read('r', { from: 'start' });
    const index = records.length - 2;
    const bad = await forged(store, 'r', index, (body) => {
      body[5] = { ...(body[5] as object), p: [{ op: 'replace', path: '/verified', value: 'yes' }] };
    });
    const error = await desk(isVerified, bad)
      .workflow.session('r')
      .info()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointError);
    expect((error as CheckpointError).step).toBe(records[index]!.step);
    expect((error as Error).message).toContain(
      'its state patch breaks the state schema the session was written with, at verified: ' +
        'Invalid input: expected boolean, received string',
    );

    const stricter = new HandoffBuilder({
      name: 'desk',
      participants: ['triage', 'billing', 'refunds'].map(
        (name) => new Agent({ name, client: new ScriptedChatClient([]) }),
      ),
      state: {
        schema: z.object({ customerId: z.number(), verified: z.boolean() }),
        initial: { customerId: 0, verified: false },
      },
    })
      .coordinator('triage')
      .addHandoff('billing', ['refunds'], { when: isVerified })
      .withCheckpointing(store)
      .build();
    const refused = await stricter
      .session('r')
      .state()
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).path).toBe('state.customerId');
    expect((refused as Error).message).toContain(
      'the conversation state is invalid at customerId: Invalid input: expected number, received string',
    );
  });
});
