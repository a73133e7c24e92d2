// Independent suite for API.md §17: calls in doubt after a cancelled run (with and without a
// store), the pause, its event, and the decisions approve / reject / resolve / a text reply.
// Written from API.md alone. Readings where the page is open:
// - the batch is [lookup (read), ping (idempotent), notify (once), refund (once)]; refund aborts
//   the run's signal as it starts, and the once tools then wait for `ctx.signal` (so the run is
//   cancelled while they run); lookup and ping have answered but, the turn being cancelled, their
//   results are not committed ("without a result") and run again after the decisions;
// - the calls in doubt are listed (in `pendingRequest.calls` and the event) in the batch's order;
// - the model's tool replies after the decisions come in the batch's call order;
// - with a store, the session is resumed through a fresh workflow object on that store.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import {
  Agent,
  AgentMessageSchema,
  approve,
  type CheckpointStore,
  ConfigError,
  FileCheckpointStore,
  HandoffBuilder,
  MemoryCheckpointStore,
  reject,
  resolve,
  ScriptedChatClient,
  scriptedText,
} from '../../../src/index.js';
import {
  aborted,
  batchThenDone,
  call,
  calls,
  counts,
  deskWorkflow,
  ledgerTool,
  memoryLedger,
  notRetried,
  ofType,
  toolReplies,
} from './support.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

type StoreKind = 'none' | 'memory' | 'file';

const BATCH = calls(['c1', 'lookup'], ['c2', 'ping'], ['c3', 'notify'], ['c4', 'refund']);
const IN_DOUBT = [call('c3', 'notify'), call('c4', 'refund')];

/**
 * Runs the batch and cancels it while the "once" calls run. Returns the session as seen by a
 * resuming handle (a fresh workflow object on the same store when there is one).
 */
async function cancelled(kind: StoreKind, id = `doubt-${kind}`) {
  const ledger = memoryLedger();
  const controller = new AbortController();
  let hanging = true;
  const hangFirst = async (ctx: { signal: AbortSignal }) => {
    if (hanging) {
      await aborted(ctx.signal);
      throw new Error('aborted');
    }
    return 'done';
  };
  const tools = [
    ledgerTool(ledger, { name: 'lookup', effect: 'read' }),
    ledgerTool(ledger, { name: 'ping', effect: 'idempotent' }),
    ledgerTool(ledger, { name: 'notify', behaviour: hangFirst }),
    ledgerTool(ledger, {
      name: 'refund',
      behaviour: hangFirst,
      onStart: () => {
        if (hanging) controller.abort();
      },
    }),
  ];
  let open: () => CheckpointStore | undefined = () => undefined;
  if (kind === 'memory') {
    const store = new MemoryCheckpointStore();
    open = () => store;
  } else if (kind === 'file') {
    const dir = await mkdtemp(join(tmpdir(), 'baton-effects-'));
    dirs.push(dir);
    open = () => new FileCheckpointStore(dir);
  }
  const first = deskWorkflow({ tools, steps: batchThenDone(BATCH), store: open() });
  const result = await first.workflow
    .session(id)
    .run('Refund INV-1', { signal: controller.signal });
  hanging = false;
  const second =
    kind === 'none' ? first : deskWorkflow({ tools, steps: batchThenDone(BATCH), store: open() });
  const clients: ScriptedChatClient[] =
    kind === 'none' ? [first.client] : [first.client, second.client];
  return {
    result,
    ledger,
    session: second.workflow.session(id),
    modelCalls: () => clients.reduce((n, c) => n + c.calls.length, 0),
    lastRequest: () => second.client.calls.at(-1)!,
  };
}

describe.each(['none', 'memory', 'file'] as const)(
  'in doubt after a cancelled run (store: %s)',
  (kind) => {
    it('the cancelled run is "cancelled"; run() then pauses with kind "in_doubt", running nothing again', async () => {
      const { result, ledger, session, modelCalls } = await cancelled(kind);
      expect(result.status).toBe('cancelled');
      expect(result.stopReason).toBeNull();
      expect(ledger.lines()).toEqual(['lookup:c1', 'ping:c2', 'notify:c3', 'refund:c4']);

      const paused = await session.run();
      expect(paused.status).toBe('awaiting_input');
      expect(paused.stopReason).toBeNull();
      expect(paused.pendingRequest).toEqual({
        id: expect.any(String),
        agent: 'desk',
        prompt: expect.any(String),
        kind: 'in_doubt',
        calls: IN_DOUBT,
      });
      // The prompt names the calls.
      expect(paused.pendingRequest!.prompt).toContain('notify');
      expect(paused.pendingRequest!.prompt).toContain('refund');
      // Nothing ran again by itself: neither a tool nor the model.
      expect(ledger.lines()).toEqual(['lookup:c1', 'ping:c2', 'notify:c3', 'refund:c4']);
      expect(modelCalls()).toBe(1);

      const thread = await session.messages();
      const events = ofType(thread, 'ToolInDoubtEvent');
      expect(events).toHaveLength(1);
      expect(events[0]!.source).toBe('desk');
      expect(events[0]!.content).toEqual(IN_DOUBT);
      expect(ofType(paused.messages, 'ToolInDoubtEvent').map((e) => e.id)).toEqual([events[0]!.id]);
      expect((await session.info()).status).toBe('awaiting_input');
    });

    it('approve(callId) runs the call again with the same callId; read and idempotent calls run again before the model', async () => {
      const { ledger, session, modelCalls, lastRequest } = await cancelled(kind);
      await session.run();
      const done = await session.run([approve('c3'), approve('c4')]);
      expect(done.status).toBe('awaiting_input');
      expect(done.pendingRequest?.kind).toBe('input');
      expect(counts(ledger.lines())).toEqual({ lookup: 2, ping: 2, notify: 2, refund: 2 });
      // The same call ids, before and after.
      expect(ledger.lines().slice(4).sort()).toEqual([
        'lookup:c1',
        'notify:c3',
        'ping:c2',
        'refund:c4',
      ]);
      expect(modelCalls()).toBe(2);
      expect(toolReplies(lastRequest())).toEqual([
        { toolCallId: 'c1', content: 'lookup done' },
        { toolCallId: 'c2', content: 'ping done' },
        { toolCallId: 'c3', content: 'done' },
        { toolCallId: 'c4', content: 'done' },
      ]);
      const thread = await session.messages();
      expect(ofType(thread, 'ToolInDoubtEvent')).toHaveLength(1);
      const responses = ofType(thread, 'ToolApprovalResponseEvent');
      expect(responses.map((r) => [r.source, r.callId, r.approved])).toEqual([
        ['user', 'c3', true],
        ['user', 'c4', true],
      ]);
    });
  },
);

describe('the in-doubt pause (API.md §17)', () => {
  it('ToolInDoubtEvent is a message like any other: {type, source: agent, content: calls, id, createdAt, metadata}', async () => {
    const { session } = await cancelled('memory', 'shape');
    const paused = await session.run();
    const [event] = ofType(paused.messages, 'ToolInDoubtEvent');
    expect(event).toEqual({
      type: 'ToolInDoubtEvent',
      id: expect.any(String),
      source: 'desk',
      createdAt: expect.any(String),
      metadata: {},
      content: IN_DOUBT,
    });
    expect(new Date(event!.createdAt).toISOString()).toBe(event!.createdAt);
    expect(AgentMessageSchema.safeParse(JSON.parse(JSON.stringify(event))).success).toBe(true);
  });

  it('run() with no task while calls are in doubt returns the same request and records nothing', async () => {
    const { session, ledger, modelCalls } = await cancelled('memory', 'same-request');
    const paused = await session.run();
    const thread = await session.messages();
    const log = await session.checkpoints();
    const again = await session.run();
    expect(again.status).toBe('awaiting_input');
    expect(again.pendingRequest).toEqual(paused.pendingRequest);
    expect(await session.messages()).toEqual(thread);
    expect(await session.checkpoints()).toEqual(log);
    expect(ledger.lines()).toHaveLength(4);
    expect(modelCalls()).toBe(1);
  });

  it('reject(callId, reason?) gives the model the exact error result, with and without a reason', async () => {
    const { session, ledger, lastRequest } = await cancelled('none', 'rejects');
    await session.run();
    const done = await session.run([reject('c3'), reject('c4', 'it was charged already')]);
    expect(done.pendingRequest?.kind).toBe('input');
    expect(counts(ledger.lines())).toEqual({ lookup: 2, ping: 2, notify: 1, refund: 1 });
    expect(toolReplies(lastRequest())).toEqual([
      { toolCallId: 'c1', content: 'lookup done' },
      { toolCallId: 'c2', content: 'ping done' },
      { toolCallId: 'c3', content: notRetried('notify') },
      { toolCallId: 'c4', content: notRetried('refund', 'it was charged already') },
    ]);
    expect(notRetried('refund', 'x')).toBe(
      'Tool call "refund" may or may not have completed; it was not retried: x',
    );
    const results = ofType(await session.messages(), 'ToolCallExecutionEvent').flatMap(
      (e) => e.content,
    );
    expect(results.filter((r) => r.callId === 'c3' || r.callId === 'c4')).toEqual([
      { callId: 'c3', name: 'notify', content: notRetried('notify'), isError: true },
      {
        callId: 'c4',
        name: 'refund',
        content: notRetried('refund', 'it was charged already'),
        isError: true,
      },
    ]);
  });

  it('a text reply rejects every call in doubt with the text as the reason and goes to the same agent', async () => {
    const { session, ledger, lastRequest, modelCalls } = await cancelled('memory', 'text-reply');
    await session.run();
    const done = await session.run('never mind, I will check by phone');
    expect(done.status).toBe('awaiting_input');
    expect(done.pendingRequest?.agent).toBe('desk');
    expect(done.pendingRequest?.kind).toBe('input');
    expect(modelCalls()).toBe(2);
    expect(counts(ledger.lines())).toEqual({ lookup: 2, ping: 2, notify: 1, refund: 1 });
    expect(toolReplies(lastRequest())).toEqual([
      { toolCallId: 'c1', content: 'lookup done' },
      { toolCallId: 'c2', content: 'ping done' },
      { toolCallId: 'c3', content: notRetried('notify', 'never mind, I will check by phone') },
      { toolCallId: 'c4', content: notRetried('refund', 'never mind, I will check by phone') },
    ]);
    const thread = await session.messages();
    expect(
      ofType(thread, 'TextMessage')
        .filter((m) => m.source === 'user')
        .map((m) => m.content),
    ).toEqual(['Refund INV-1', 'never mind, I will check by phone']);
  });

  it("resolve(callId, result) is recorded as the decision and as the tool's result; the tool does not run", async () => {
    const { session, ledger, lastRequest } = await cancelled('memory', 'resolve');
    await session.run();
    const done = await session.run([resolve('c4', 'refunded by hand'), approve('c3')]);
    expect(done.pendingRequest?.kind).toBe('input');
    expect(counts(ledger.lines())).toEqual({ lookup: 2, ping: 2, notify: 2, refund: 1 });
    expect(toolReplies(lastRequest())).toEqual([
      { toolCallId: 'c1', content: 'lookup done' },
      { toolCallId: 'c2', content: 'ping done' },
      { toolCallId: 'c3', content: 'done' },
      { toolCallId: 'c4', content: 'refunded by hand' },
    ]);
    const thread = await session.messages();
    const decision = ofType(thread, 'ToolApprovalResponseEvent').find((e) => e.callId === 'c4');
    expect(decision).toMatchObject({
      source: 'user',
      callId: 'c4',
      approved: true,
      result: 'refunded by hand',
    });
    const results = ofType(thread, 'ToolCallExecutionEvent').flatMap((e) => e.content);
    expect(results.filter((r) => r.callId === 'c4')).toEqual([
      { callId: 'c4', name: 'refund', content: 'refunded by hand', isError: false },
    ]);
  });

  it('resolve() alone decides one call; the other stays in doubt and the model is not called', async () => {
    const { session, ledger, modelCalls } = await cancelled('memory', 'resolve-alone');
    await session.run();
    const still = await session.run(resolve('c4', 'refunded by hand'));
    expect(still.status).toBe('awaiting_input');
    expect(still.pendingRequest?.kind).toBe('in_doubt');
    expect(still.pendingRequest?.calls).toEqual([call('c3', 'notify')]);
    expect(modelCalls()).toBe(1);
    expect(counts(ledger.lines())).toEqual({ lookup: 1, ping: 1, notify: 1, refund: 1 });
    const done = await session.run(reject('c3', 'skip'));
    expect(done.pendingRequest?.kind).toBe('input');
    expect(modelCalls()).toBe(2);
    expect(counts(ledger.lines())).toEqual({ lookup: 2, ping: 2, notify: 1, refund: 1 });
  });

  it('resolve() for a call that is not in doubt is a ConfigError, and commits nothing', async () => {
    const { session, ledger } = await cancelled('memory', 'resolve-not-in-doubt');
    const paused = await session.run();
    const thread = await session.messages();
    const log = await session.checkpoints();
    // c1 is a call of the batch, but a read call: not in doubt.
    await expect(session.run(resolve('c1', 'looked up'))).rejects.toBeInstanceOf(ConfigError);
    await expect(session.run([approve('c3'), resolve('c1', 'x')])).rejects.toBeInstanceOf(
      ConfigError,
    );
    expect(await session.messages()).toEqual(thread);
    expect(await session.checkpoints()).toEqual(log);
    expect(ledger.lines()).toHaveLength(4);
    expect((await session.run()).pendingRequest).toEqual(paused.pendingRequest);
  });

  it('unknown call ids are a ConfigError before anything is committed', async () => {
    const { session, ledger, modelCalls } = await cancelled('memory', 'unknown');
    const paused = await session.run();
    const thread = await session.messages();
    const log = await session.checkpoints();
    await expect(
      session.run([approve('c3'), approve('c4'), approve('nope')]),
    ).rejects.toBeInstanceOf(ConfigError);
    await expect(session.run(resolve('nope', 'x'))).rejects.toBeInstanceOf(ConfigError);
    await expect(session.run(reject('nope'))).rejects.toBeInstanceOf(ConfigError);
    expect(await session.messages()).toEqual(thread);
    expect(await session.checkpoints()).toEqual(log);
    expect(ledger.lines()).toHaveLength(4);
    expect(modelCalls()).toBe(1);
    expect((await session.run()).pendingRequest).toEqual(paused.pendingRequest);
  });
});

describe('what is not in doubt (API.md §17)', () => {
  it('a "once" tool that throws has an error result like any tool; nothing is in doubt', async () => {
    const ledger = memoryLedger();
    const store = new MemoryCheckpointStore();
    const { workflow, client } = deskWorkflow({
      tools: [ledgerTool(ledger, { name: 'refund', behaviour: 'throw' })],
      steps: batchThenDone(calls(['c1', 'refund'])),
      store,
    });
    const session = workflow.session('throws');
    const result = await session.run('Refund INV-1');
    expect(result.status).toBe('awaiting_input');
    expect(result.pendingRequest?.kind).toBe('input');
    expect(ledger.lines()).toEqual(['refund:c1']);
    expect(client.calls).toHaveLength(2);
    const [reply] = toolReplies(client.calls[1]!);
    expect(reply?.toolCallId).toBe('c1');
    expect(reply?.content).toContain('refund failed');
    const results = ofType(result.messages, 'ToolCallExecutionEvent').flatMap((e) => e.content);
    expect(results.map((r) => [r.callId, r.isError])).toEqual([['c1', true]]);
    expect(ofType(await session.messages(), 'ToolInDoubtEvent')).toEqual([]);
    const again = await session.run();
    expect(again.pendingRequest?.kind).toBe('input');
    expect(ledger.lines()).toEqual(['refund:c1']);
  });

  it('a cancelled batch of "read" calls is not in doubt: run() redoes the turn', async () => {
    const ledger = memoryLedger();
    const controller = new AbortController();
    let first = true;
    const { workflow, client } = deskWorkflow({
      tools: [
        ledgerTool(ledger, {
          name: 'lookup',
          effect: 'read',
          onStart: () => {
            if (first) controller.abort();
          },
          behaviour: async (ctx) => {
            if (first) {
              await aborted(ctx.signal);
              throw new Error('aborted');
            }
            return 'found';
          },
        }),
      ],
      steps: batchThenDone(calls(['c1', 'lookup'])),
    });
    const session = workflow.session('read-redo');
    const cancelledRun = await session.run('Look INV-1 up', { signal: controller.signal });
    first = false;
    expect(cancelledRun.status).toBe('cancelled');
    const redone = await session.run();
    expect(redone.status).toBe('awaiting_input');
    expect(redone.pendingRequest?.kind).toBe('input');
    expect(ledger.lines()).toEqual(['lookup:c1', 'lookup:c1']);
    expect(client.calls).toHaveLength(3);
    expect(ofType(await session.messages(), 'ToolInDoubtEvent')).toEqual([]);
  });

  it('an approval decision is the start of its call: a "once" call cancelled after its approval is in doubt', async () => {
    const ledger = memoryLedger();
    const controller = new AbortController();
    let hanging = true;
    const { workflow, client } = deskWorkflow({
      tools: [
        ledgerTool(ledger, {
          name: 'refund',
          needsApproval: true,
          onStart: () => {
            if (hanging) controller.abort();
          },
          behaviour: async (ctx) => {
            if (hanging) {
              await aborted(ctx.signal);
              throw new Error('aborted');
            }
            return 'refunded';
          },
        }),
      ],
      steps: [calls(['c1', 'refund']), scriptedText('Refunded.')],
      store: new MemoryCheckpointStore(),
    });
    const session = workflow.session('approval-start');
    const asked = await session.run('Refund INV-1');
    expect(asked.pendingRequest?.kind).toBe('approval');
    const cancelledRun = await session.run(approve('c1'), { signal: controller.signal });
    hanging = false;
    expect(cancelledRun.status).toBe('cancelled');
    expect(ledger.lines()).toEqual(['refund:c1']);
    const paused = await session.run();
    expect(paused.pendingRequest?.kind).toBe('in_doubt');
    expect(paused.pendingRequest?.calls).toEqual([call('c1', 'refund')]);
    expect(ledger.lines()).toEqual(['refund:c1']);
    expect(client.calls).toHaveLength(1);
    // resolve() is refused where nothing is in doubt: during an approval pause or an input pause.
    const done = await session.run(resolve('c1', 'refunded by hand'));
    expect(done.pendingRequest?.kind).toBe('input');
    expect(ledger.lines()).toEqual(['refund:c1']);
    await expect(session.run(resolve('c1', 'again'))).rejects.toBeInstanceOf(ConfigError);
  });

  it('resolve() during an approval pause is a ConfigError and commits nothing', async () => {
    const ledger = memoryLedger();
    const { workflow } = deskWorkflow({
      tools: [ledgerTool(ledger, { name: 'refund', needsApproval: true })],
      steps: [calls(['c1', 'refund']), scriptedText('Refunded.')],
      store: new MemoryCheckpointStore(),
    });
    const session = workflow.session('approval-resolve');
    const asked = await session.run('Refund INV-1');
    expect(asked.pendingRequest?.kind).toBe('approval');
    const thread = await session.messages();
    await expect(session.run(resolve('c1', 'refunded by hand'))).rejects.toBeInstanceOf(
      ConfigError,
    );
    expect(await session.messages()).toEqual(thread);
    expect(ledger.lines()).toEqual([]);
    expect((await session.run()).pendingRequest).toEqual(asked.pendingRequest);
    expect(ledger.lines()).toEqual([]);
  });

  it('an approved "idempotent" call cancelled while it runs runs again on run(), with the same callId', async () => {
    const ledger = memoryLedger();
    const controller = new AbortController();
    let hanging = true;
    const { workflow, client } = deskWorkflow({
      tools: [
        ledgerTool(ledger, {
          name: 'ping',
          effect: 'idempotent',
          needsApproval: true,
          onStart: () => {
            if (hanging) controller.abort();
          },
          behaviour: async (ctx) => {
            if (hanging) {
              await aborted(ctx.signal);
              throw new Error('aborted');
            }
            return 'pinged';
          },
        }),
      ],
      steps: [calls(['c1', 'ping']), scriptedText('Pinged.')],
      store: new MemoryCheckpointStore(),
    });
    const session = workflow.session('idempotent-approved');
    expect((await session.run('Ping')).pendingRequest?.kind).toBe('approval');
    const cancelledRun = await session.run(approve('c1'), { signal: controller.signal });
    hanging = false;
    expect(cancelledRun.status).toBe('cancelled');
    const done = await session.run();
    expect(done.pendingRequest?.kind).toBe('input');
    expect(ledger.lines()).toEqual(['ping:c1', 'ping:c1']);
    expect(client.calls).toHaveLength(2);
    expect(toolReplies(client.calls[1]!)).toEqual([{ toolCallId: 'c1', content: 'pinged' }]);
    expect(ofType(await session.messages(), 'ToolInDoubtEvent')).toEqual([]);
  });
});

describe('who gets a text reply to calls in doubt (API.md §17)', () => {
  it('the paused agent, not the coordinator', async () => {
    const ledger = memoryLedger();
    const controller = new AbortController();
    let hanging = true;
    const triageClient = new ScriptedChatClient(() => calls(['h1', 'handoff_to_billing']));
    const billingClient = new ScriptedChatClient(batchThenDone(calls(['c1', 'refund'])));
    const triage = new Agent({ name: 'triage', client: triageClient });
    const billing = new Agent({
      name: 'billing',
      client: billingClient,
      maxToolIterations: 2,
      tools: [
        ledgerTool(ledger, {
          name: 'refund',
          onStart: () => {
            if (hanging) controller.abort();
          },
          behaviour: async (ctx) => {
            if (hanging) {
              await aborted(ctx.signal);
              throw new Error('aborted');
            }
            return 'refunded';
          },
        }),
      ],
    });
    const workflow = new HandoffBuilder({ name: 'two-desks', participants: [triage, billing] })
      .coordinator(triage)
      .build();
    const session = workflow.session('reply-routing');
    expect((await session.run('Refund INV-1', { signal: controller.signal })).status).toBe(
      'cancelled',
    );
    hanging = false;
    const paused = await session.run();
    expect(paused.pendingRequest?.kind).toBe('in_doubt');
    expect(paused.pendingRequest?.agent).toBe('billing');
    const done = await session.run('skip it');
    expect(done.pendingRequest?.agent).toBe('billing');
    expect(triageClient.calls).toHaveLength(1);
    expect(billingClient.calls).toHaveLength(2);
    expect(toolReplies(billingClient.calls[1]!)).toEqual([
      { toolCallId: 'c1', content: notRetried('refund', 'skip it') },
    ]);
    expect(ledger.lines()).toEqual(['refund:c1']);
  });
});
