// Issue 34, last part (API.md §19 with §17): a session whose "once" call was cut off while it ran
// (in doubt), then decided (approve, reject, resolve), records and replays: the replay cuts its
// first run off at that call as the recorded one was, finds the call in doubt on the run that
// follows, and takes the recorded decision.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import {
  Agent,
  approve,
  type CheckpointStore,
  HandoffBuilder,
  MemoryCheckpointStore,
  reject,
  replay,
  resolve,
  ScriptedChatClient,
  scriptedText,
  scriptedToolCall,
  type ToolEffect,
  tool,
} from '../../src/index.js';

interface DeskOptions {
  /** Aborted when `refund` starts (a run cut off while the call runs); none: it just runs. */
  cut?: AbortController;
  effect?: ToolEffect;
  store?: CheckpointStore;
}

/** desk calls `refund` (id c1) and then says "Done"; `runs` counts the refunds paid. */
function desk({ cut, effect = 'once', store }: DeskOptions = {}) {
  const runs = { count: 0 };
  const refund = tool({
    name: 'refund',
    parameters: z.object({}),
    effect,
    execute: async (_args, ctx) => {
      if (cut !== undefined && !cut.signal.aborted) {
        cut.abort();
        await new Promise((_resolve, fail) =>
          ctx.signal.addEventListener('abort', () => fail(new Error('cut off'))),
        );
      }
      runs.count++;
      return 'refunded';
    },
  });
  const agent = new Agent({
    name: 'desk',
    tools: [refund],
    maxToolIterations: 2,
    client: new ScriptedChatClient((request) =>
      request.messages.at(-1)?.role === 'tool'
        ? scriptedText('Done')
        : scriptedToolCall('refund', {}, 'c1'),
    ),
  });
  const other = new Agent({ name: 'other', client: new ScriptedChatClient([]) });
  const builder = new HandoffBuilder({ name: 'doubt', participants: [agent, other] });
  const workflow = (store === undefined ? builder : builder.withCheckpointing(store))
    .coordinator(agent)
    .build();
  return { workflow, runs };
}

const DECISIONS = {
  approve: approve('c1'),
  reject: reject('c1', 'not now'),
  resolve: resolve('c1', 'paid by hand'),
};

/** Cuts the refund off, resumes (in doubt) through a fresh workflow object, decides. */
async function decided(decision: keyof typeof DECISIONS) {
  const store = new MemoryCheckpointStore();
  const cut = new AbortController();
  const first = await desk({ cut, store })
    .workflow.session('s')
    .run('refund me', { signal: cut.signal });
  expect(first.status).toBe('cancelled');
  const session = desk({ store }).workflow.session('s');
  const paused = await session.run();
  expect(paused.pendingRequest).toMatchObject({ kind: 'in_doubt', agent: 'desk' });
  const done = await session.run(DECISIONS[decision]);
  expect(done.status).toBe('awaiting_input');
  return session.record();
}

describe('recording a session with calls in doubt (API.md §19 with §17)', () => {
  for (const [decision, result, paid] of [
    ['approve', { content: 'refunded', isError: false }, 1],
    [
      'reject',
      {
        content: 'Tool call "refund" may or may not have completed; it was not retried: not now',
        isError: true,
      },
      0,
    ],
    ['resolve', { content: 'paid by hand', isError: false }, 0],
  ] as const) {
    it(`records the cut-off run, the run that found the call in doubt, and ${decision}; replays ok`, async () => {
      const recording = await decided(decision);
      expect(recording.turns).toEqual([
        {
          agent: 'desk',
          answers: [
            {
              content: null,
              toolCalls: [{ id: 'c1', name: 'refund', arguments: '{}' }],
              usage: { promptTokens: 0, completionTokens: 0 },
            },
            { content: 'Done', toolCalls: [], usage: { promptTokens: 0, completionTokens: 0 } },
          ],
          results: [{ callId: 'c1', name: 'refund', ...result }],
          inDoubt: [{ id: 'c1', name: 'refund', arguments: '{}' }],
          message: 'TextMessage',
        },
      ]);
      expect(
        recording.runs.map((r) => [r.input?.map((m) => m.type) ?? null, r.turns, r.status]),
      ).toEqual([
        [['TextMessage'], 1, 'cancelled'],
        [null, 1, 'awaiting_input'],
        [['ToolApprovalResponseEvent'], 1, 'awaiting_input'],
      ]);
      expect(await replay(desk().workflow, recording)).toEqual({ ok: true, turns: 1 });
      // Live: the call in doubt never runs at first; it runs once more only when approved.
      const live = desk();
      expect(await replay(live.workflow, recording, { tools: 'live' })).toEqual({
        ok: true,
        turns: 1,
      });
      expect(live.runs.count).toBe(paid);
    });
  }

  it('a tool no longer "once" is an in_doubt divergence at the turn of the call', async () => {
    const recording = await decided('approve');
    expect(await replay(desk({ effect: 'read' }).workflow, recording)).toEqual({
      ok: false,
      turns: 1,
      divergence: { turn: 1, agent: 'desk', what: 'in_doubt', expected: ['refund'], actual: null },
    });
  });
});

/**
 * One batch of three calls: `lookup` (read), `notify` and `refund` ("once"); with `cut`, refund
 * aborts it as it starts and the "once" calls wait for their signal. Each run lands in `ledger`.
 */
function batchDesk(cut?: AbortController) {
  const ledger: string[] = [];
  const make = (name: string, effect: ToolEffect) =>
    tool({
      name,
      parameters: z.object({}),
      effect,
      execute: async (_args, ctx) => {
        ledger.push(`${name}:${ctx.callId}`);
        if (effect === 'once' && cut !== undefined && !ledger.includes('decided')) {
          if (name === 'refund') cut.abort();
          await new Promise((_resolve, fail) =>
            ctx.signal.addEventListener('abort', () => fail(new Error('cut off'))),
          );
        }
        return `${name} done`;
      },
    });
  const agent = new Agent({
    name: 'desk',
    tools: [make('lookup', 'read'), make('notify', 'once'), make('refund', 'once')],
    maxToolIterations: 2,
    client: new ScriptedChatClient((request) => {
      const replies = request.messages.filter((m) => m.role === 'tool').length;
      if (replies > 0) return scriptedText(`Done (${replies} replies)`);
      return {
        content: null,
        toolCalls: ['lookup', 'notify', 'refund'].map((name, i) => ({
          id: `b${i + 1}`,
          name,
          arguments: '{}',
        })),
        usage: { promptTokens: 0, completionTokens: 0 },
      };
    }),
  });
  const workflow = new HandoffBuilder({ name: 'doubt', participants: [agent] })
    .coordinator(agent)
    .build();
  return { workflow, ledger };
}

describe('a batch cut off with read and "once" calls', () => {
  it('replays the decisions; live, only what the session ran after them runs again', async () => {
    const cut = new AbortController();
    const original = batchDesk(cut);
    const session = original.workflow.session('batch');
    expect((await session.run('go', { signal: cut.signal })).status).toBe('cancelled');
    const paused = await session.run();
    expect(paused.pendingRequest?.calls?.map((c) => c.id)).toEqual(['b2', 'b3']);
    original.ledger.push('decided');
    const done = await session.run([approve('b2'), reject('b3', 'no')]);
    expect(done.pendingRequest?.prompt).toBe('Done (3 replies)');
    expect(original.ledger).toEqual([
      'lookup:b1',
      'notify:b2',
      'refund:b3',
      'decided',
      'lookup:b1',
      'notify:b2',
    ]);
    const recording = await session.record();
    expect(recording.turns[0]?.inDoubt?.map((c) => c.id)).toEqual(['b2', 'b3']);

    const recorded = batchDesk();
    expect(await replay(recorded.workflow, recording)).toEqual({ ok: true, turns: 1 });
    expect(recorded.ledger).toEqual([]);
    // Live: the cut-off batch runs its read call (whose result the cut discards, as it was), the
    // calls in doubt do not run; after the decisions the read call and the approved call run.
    const live = batchDesk();
    expect(await replay(live.workflow, recording, { tools: 'live' })).toEqual({
      ok: true,
      turns: 1,
    });
    expect(live.ledger).toEqual(['lookup:b1', 'lookup:b1', 'notify:b2']);
  });
});
