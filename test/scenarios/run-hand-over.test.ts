// A run handed on (the internal HAND_OVER signal a worker's close() aborts, API.md §16): the turn
// it is making finishes and is committed, it starts no further turn and ends `cancelled`, and the
// next run of the session goes on from that step — each turn once, in order (issue 30).
import { describe, expect, it } from 'vitest';

import {
  Agent,
  type AgentMessage,
  type RunOptions,
  MemoryCheckpointStore,
  RoundRobinGroupChat,
  ScriptedChatClient,
  TextMentionTermination,
} from '../../src/index.js';
import { HAND_OVER, type WorkerRun } from '../../src/engine/run/run-observer.js';

/** One agent that answers `tick <n>` until `DONE <stopAt>`; `during(n)` runs inside call n. */
function ticker(stopAt: number, during: (n: number) => void = () => {}) {
  let n = 0;
  const client = new ScriptedChatClient(async () => {
    n++;
    during(n);
    await new Promise((resolve) => setTimeout(resolve, 1));
    return { content: n >= stopAt ? `DONE ${n}` : `tick ${n}` };
  });
  const store = new MemoryCheckpointStore();
  const workflow = new RoundRobinGroupChat([new Agent({ name: 'a', client })], {
    maxTurns: 100,
    checkpointStore: store,
    terminationCondition: new TextMentionTermination('DONE'),
  });
  return { workflow, store, calls: () => n };
}

const answers = (messages: readonly AgentMessage[]) =>
  messages.flatMap((m) => (m.type === 'TextMessage' && m.source === 'a' ? [m.content] : []));

/** Run options that hand the run on once `handOver` aborts. */
const handingOn = (handOver: AbortController, signal?: AbortSignal): RunOptions & WorkerRun => ({
  ...(signal === undefined ? {} : { signal }),
  [HAND_OVER]: handOver.signal,
});

describe('a run handed on (HAND_OVER)', () => {
  it('finishes the turn it is making, starts no further one, and the next run goes on from there', async () => {
    const handOver = new AbortController();
    const { workflow, store, calls } = ticker(5, (n) => {
      if (n === 2) handOver.abort();
    });
    const first = await workflow.session('s').run('go', handingOn(handOver));
    expect([first.status, first.stopReason]).toEqual(['cancelled', null]);
    expect(answers(first.messages)).toEqual(['tick 1', 'tick 2']);
    expect(calls()).toBe(2);
    expect((await workflow.session('s').info()).status).toBe('cancelled');
    expect(await store.leaseHolder('s')).toBe(null);

    const rest = await workflow.session('s').run();
    expect([rest.status, rest.stopReason]).toEqual(['terminated', "Text 'DONE' mentioned"]);
    expect(calls()).toBe(5);
    expect(answers(await workflow.session('s').messages())).toEqual([
      'tick 1',
      'tick 2',
      'tick 3',
      'tick 4',
      'DONE 5',
    ]);
  });

  it('a run handed on before it made a turn makes its first turn, then ends', async () => {
    const { workflow, calls } = ticker(5);
    const handOver = new AbortController();
    handOver.abort();
    const result = await workflow.session('s').run('go', handingOn(handOver));
    expect([result.status, answers(result.messages)]).toEqual(['cancelled', ['tick 1']]);
    expect(calls()).toBe(1);
  });

  it('a turn that ends the run ends it as it would have: nothing is handed on', async () => {
    const handOver = new AbortController();
    const { workflow, calls } = ticker(2, (n) => {
      if (n === 2) handOver.abort();
    });
    const result = await workflow.session('s').run('go', handingOn(handOver));
    expect([result.status, result.stopReason]).toEqual(['terminated', "Text 'DONE' mentioned"]);
    expect(answers(result.messages)).toEqual(['tick 1', 'DONE 2']);
    expect(calls()).toBe(2);
  });

  it('the run signal still cuts the running turn short: nothing of it is committed', async () => {
    const signal = new AbortController();
    const handOver = new AbortController();
    const { workflow } = ticker(5, (n) => {
      if (n === 2) {
        handOver.abort();
        signal.abort();
      }
    });
    const result = await workflow.session('s').run('go', handingOn(handOver, signal.signal));
    expect([result.status, answers(result.messages)]).toEqual(['cancelled', ['tick 1']]);
  });
});
