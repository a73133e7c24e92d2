import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { describe, expect, it } from 'vitest';

import {
  applyStep,
  initialSessionState,
  type SessionState,
} from '../engine/state/session-state.js';
import type { AgentMessage } from './message.js';
import { textMessage, toolCallRequestEvent } from './message-factories.js';
import { indexThread, recordAppend, releaseIndex } from './thread-index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Lets the current job end (a WeakRef keeps its target alive until then), then collects. */
async function collect(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  gc();
  gc();
}

const say = (n: number) => textMessage({ source: 'user', content: `message ${n}` });

describe('thread lineages', () => {
  it('do not keep the threads of earlier steps alive (a session held every copy it made)', async () => {
    let state: SessionState = initialSessionState('triage', null);
    const earlier: WeakRef<readonly AgentMessage[]>[] = [];
    for (let n = 0; n < 20; n++) {
      state = applyStep(state, { event: 'user_input', append: [say(n)] }).state;
      // As an agent turn does: the index of the thread it sees.
      expect(indexThread(state.thread).length).toBe(n + 1);
      if (n < 19) earlier.push(new WeakRef(state.thread));
    }
    await collect();
    expect(earlier.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    expect(state.thread).toHaveLength(20);
  });

  it('share one index along a lineage, extended by the new messages only', () => {
    const first: AgentMessage[] = [say(1)];
    const calls = toolCallRequestEvent({
      source: 'billing',
      content: [{ id: 'call-1', name: 'refund', arguments: '{}' }],
    });
    const second = first.concat(calls);
    recordAppend(first, second);
    const before = indexThread(first);
    expect([...before.callIds]).toEqual([]);
    const after = indexThread(second);
    expect(after.length).toBe(2);
    expect([...after.callIds]).toEqual(['call-1']);
  });

  it('give a fork that disagrees with a longer thread of its lineage an index of its own', () => {
    const base: AgentMessage[] = [say(1)];
    const call = (id: string) =>
      toolCallRequestEvent({
        source: 'billing',
        content: [{ id, name: 'refund', arguments: '{}' }],
      });
    const left = base.concat(call('left'));
    recordAppend(base, left);
    expect([...indexThread(left).callIds]).toEqual(['left']);
    const right = base.concat(call('right'), say(2));
    recordAppend(base, right);
    expect([...indexThread(right).callIds]).toEqual(['right']);
    // The first fork still sees only its own call.
    expect([...indexThread(left).callIds]).toEqual(['left']);
  });

  it('index a shorter thread of a lineage without the facts of the longer one', () => {
    const base: AgentMessage[] = [say(1)];
    const longer = base.concat(
      toolCallRequestEvent({
        source: 'billing',
        content: [{ id: 'later', name: 'refund', arguments: '{}' }],
      }),
    );
    recordAppend(base, longer);
    expect([...indexThread(longer).callIds]).toEqual(['later']);
    expect([...indexThread(base).callIds]).toEqual([]);
  });

  it('keep the index of a running thread however many others run (a cache of 64 made each call rebuild above 64 sessions)', () => {
    const running: AgentMessage[] = [say(0)];
    const index = indexThread(running);
    for (let n = 1; n <= 100; n++) {
      const other = [say(n)];
      indexThread(other);
      releaseIndex(other);
    }
    expect(indexThread(running)).toBe(index);
  });

  it('let go of a released index once 64 more recent ones are released', () => {
    const paused: AgentMessage[] = [say(0)];
    const index = indexThread(paused);
    releaseIndex(paused);
    expect(indexThread(paused)).toBe(index);
    releaseIndex(paused);
    for (let n = 1; n <= 64; n++) {
      const other = [say(n)];
      indexThread(other);
      releaseIndex(other);
    }
    const rebuilt = indexThread(paused);
    expect(rebuilt).not.toBe(index);
    expect(rebuilt.length).toBe(1);
  });
});
