// Issue 15 / API.md §10: approvals in the three teams and in a graph, black-box.
import { describe, expect, it } from 'vitest';

import {
  Agent,
  approve,
  GraphBuilder,
  MemoryCheckpointStore,
  reject,
  RoundRobinGroupChat,
  ScriptedChatClient,
  scriptedText,
  SelectorGroupChat,
  Swarm,
  TextMessageTermination,
  type CheckpointStore,
  type Runnable,
} from '../../../src/index.js';
import { call, calls, lookupTool, ofType, refundTool, toolReplies } from './helpers.js';

type Kind = 'RoundRobinGroupChat' | 'SelectorGroupChat' | 'Swarm' | 'GraphBuilder';

function build(
  kind: Kind,
  steps: ConstructorParameters<typeof ScriptedChatClient>[0],
  store?: CheckpointStore,
) {
  const { refund, runs } = refundTool();
  const { lookup, runs: lookups } = lookupTool();
  const client = new ScriptedChatClient(steps);
  const desk = new Agent({ name: 'desk', client, tools: [lookup, refund], maxToolIterations: 4 });
  const otherClient = new ScriptedChatClient([]);
  const other = new Agent({ name: 'other', client: otherClient });
  const stop = new TextMessageTermination('desk');
  let team: Runnable;
  switch (kind) {
    case 'RoundRobinGroupChat':
      team = new RoundRobinGroupChat([desk, other], {
        terminationCondition: stop,
        ...(store ? { checkpointStore: store } : {}),
      });
      break;
    case 'SelectorGroupChat':
      team = new SelectorGroupChat([desk, other], {
        selectorFunc: () => 'desk',
        terminationCondition: stop,
        ...(store ? { checkpointStore: store } : {}),
      });
      break;
    case 'Swarm':
      team = new Swarm([desk, other], {
        terminationCondition: stop,
        ...(store ? { checkpointStore: store } : {}),
      });
      break;
    case 'GraphBuilder': {
      let b = new GraphBuilder({ name: 'g' }).addNode(desk);
      if (store) b = b.withCheckpointing(store);
      team = b.build();
      break;
    }
  }
  return { team, client, otherClient, runs, lookups };
}

const KINDS: Kind[] = ['RoundRobinGroupChat', 'SelectorGroupChat', 'Swarm', 'GraphBuilder'];
const expectedStop = (kind: Kind) =>
  kind === 'GraphBuilder' ? 'Digraph execution is complete' : "Text message received from 'desk'";

describe.each(KINDS)('%s', (kind) => {
  it('pauses for approval after running the other calls; approve() runs the call and continues the turn', async () => {
    const { team, client, otherClient, runs, lookups } = build(kind, [
      calls(['c1', 'lookup', { invoiceId: 'INV-1' }], ['c2', 'refund', { invoiceId: 'INV-1' }]),
      scriptedText('Refunded.'),
    ]);
    const paused = await team.run('Refund INV-1');
    expect(paused.status).toBe('awaiting_input');
    expect(paused.stopReason).toBeNull();
    expect(paused.pendingRequest).toEqual({
      id: expect.any(String),
      agent: 'desk',
      kind: 'approval',
      prompt: expect.any(String),
      calls: [call('c2', 'refund', { invoiceId: 'INV-1' })],
    });
    expect(lookups).toEqual(['INV-1']);
    expect(runs).toEqual([]);
    expect(ofType(paused.messages, 'ToolApprovalRequestEvent')).toMatchObject([
      { source: 'desk', content: [call('c2', 'refund', { invoiceId: 'INV-1' })] },
    ]);

    const noop = await team.run();
    expect(noop.pendingRequest).toEqual(paused.pendingRequest);
    expect(client.calls).toHaveLength(1);

    const done = await team.run(approve('c2'));
    expect(runs).toEqual([{ invoiceId: 'INV-1', callId: 'c2' }]);
    expect(client.calls).toHaveLength(2);
    expect(toolReplies(client.calls[1]!)).toEqual([
      { toolCallId: 'c1', content: 'INV-1: $80' },
      { toolCallId: 'c2', content: 'refunded INV-1' },
    ]);
    expect(done.status).toBe('terminated');
    expect(done.stopReason).toBe(expectedStop(kind));
    expect(ofType(done.messages, 'TextMessage').map((m) => [m.source, m.content])).toContainEqual([
      'desk',
      'Refunded.',
    ]);
    expect(otherClient.calls).toHaveLength(0);
  });

  it('a plain text reply rejects the pending call and goes to the paused agent', async () => {
    const { team, client, otherClient, runs } = build(kind, [
      calls(['c2', 'refund', { invoiceId: 'INV-1' }]),
      scriptedText('Kept.'),
    ]);
    await team.run('Refund INV-1');
    const done = await team.run('do not');
    expect(runs).toEqual([]);
    expect(otherClient.calls).toHaveLength(0);
    expect(toolReplies(client.calls[1]!)).toEqual([
      { toolCallId: 'c2', content: 'Tool call "refund" was rejected by the user: do not' },
    ]);
    expect(done.stopReason).toBe(expectedStop(kind));
  });

  it('reject() and a resume from a second object on one store run the tool exactly once', async () => {
    const store = new MemoryCheckpointStore();
    const first = build(
      kind,
      [calls(['a', 'refund', { invoiceId: 'A' }], ['b', 'refund', { invoiceId: 'B' }])],
      store,
    );
    const paused = await (
      first.team as Runnable & { session(id: string): ReturnType<Runnable['session']> }
    )
      .session('t1')
      .run('two');
    expect(paused.pendingRequest?.calls).toEqual([
      call('a', 'refund', { invoiceId: 'A' }),
      call('b', 'refund', { invoiceId: 'B' }),
    ]);
    const second = build(kind, [scriptedText('Done.')], store);
    const session = second.team.session('t1');
    const info = await session.info();
    expect(info.status).toBe('awaiting_input');
    expect(info.pendingRequest).toMatchObject({ id: paused.pendingRequest!.id, agent: 'desk' });
    const done = await session.run([approve('b'), reject('a', 'no')]);
    expect(first.runs).toEqual([]);
    expect(second.runs).toEqual([{ invoiceId: 'B', callId: 'b' }]);
    expect(toolReplies(second.client.calls[0]!)).toEqual([
      { toolCallId: 'a', content: 'Tool call "refund" was rejected by the user: no' },
      { toolCallId: 'b', content: 'refunded B' },
    ]);
    expect(done.stopReason).toBe(expectedStop(kind));
    await store.close();
  });
});
