import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { describe, expect, it } from 'vitest';

import type { AgentMessage } from './message.js';
import { textMessage, toolCallRequestEvent } from './message-factories.js';
import { carriedThread, carryThread, Thread } from './thread.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Lets the current job end (a WeakRef keeps its target alive until then), then collects. */
async function collect(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  gc();
  gc();
}

const say = (n: number | string) => textMessage({ source: 'user', content: `message ${n}` });
const call = (id: string) =>
  toolCallRequestEvent({ source: 'billing', content: [{ id, name: 'refund', arguments: '{}' }] });
const contents = (messages: Iterable<AgentMessage>) =>
  [...messages].map((m) => ('content' in m && typeof m.content === 'string' ? m.content : m.type));

describe('a Thread', () => {
  it('is a value: appending makes a new thread and leaves the old one as it was', () => {
    const one = Thread.of([]).append([say(1)]);
    const two = one.append([say(2), say(3)]);
    const other = one.append([say('x')]);
    expect(contents(one)).toEqual(['message 1']);
    expect(contents(two)).toEqual(['message 1', 'message 2', 'message 3']);
    expect(contents(other)).toEqual(['message 1', 'message x']);
    expect(contents(two.append([say(4)]))).toEqual([
      'message 1',
      'message 2',
      'message 3',
      'message 4',
    ]);
    expect(one.append([])).toBe(one);
  });

  it('gives out a frozen view that never changes, and is the thread of that view', () => {
    const one = Thread.of([say(1)]);
    const view = one.messages;
    expect(Object.isFrozen(view)).toBe(true);
    expect(one.messages).toBe(view);
    expect(Thread.of(view)).toBe(one);
    expect(() => (view as AgentMessage[]).push(say('junk'))).toThrow(TypeError);
    const two = one.append([say(2)]);
    expect(contents(view)).toEqual(['message 1']);
    expect(contents(two.messages)).toEqual(['message 1', 'message 2']);
    expect(contents(one.messages)).toEqual(['message 1']);
  });

  it('copies the array it is made of: changing that array changes no thread', () => {
    const mine = [say(1)];
    const thread = Thread.of(mine);
    mine.push(say('junk'));
    mine[0] = say('changed');
    expect(contents(thread)).toEqual(['message 1']);
  });

  it('takes messages already appended at its end as they are (a preview of a step)', () => {
    const base = Thread.of([say(1)]);
    const selection = say('selection');
    const preview = base.append([selection]);
    const committed = base.append([selection, say(2)]);
    expect(contents(preview)).toEqual(['message 1', 'message selection']);
    expect(contents(committed)).toEqual(['message 1', 'message selection', 'message 2']);
    // Different messages at that place make a thread of its own.
    expect(contents(base.append([say('other')]))).toEqual(['message 1', 'message other']);
    expect(contents(committed)).toEqual(['message 1', 'message selection', 'message 2']);
  });

  it('reads by position, from the end when negative, and slices into a new array', () => {
    const thread = Thread.of([say(1), say(2), say(3)]);
    expect(thread.at(0)?.id).toBe(thread.messages[0]?.id);
    expect(contents([thread.at(-1) as AgentMessage])).toEqual(['message 3']);
    expect(thread.at(3)).toBeUndefined();
    expect(thread.at(-4)).toBeUndefined();
    const slice = thread.slice(1);
    slice.push(say('mine'));
    expect(contents(slice)).toEqual(['message 2', 'message 3', 'message mine']);
    expect(thread.length).toBe(3);
    expect(contents(thread.since(2))).toEqual(['message 3']);
    expect(thread.since(5).length).toBe(0);
    expect(thread.since(0)).toBe(thread);
  });
});

describe("a Thread's index", () => {
  it('is extended by the new messages only, along the threads made one from another', () => {
    const first = Thread.of([say(1)]);
    const before = first.index();
    expect([...before.callIds]).toEqual([]);
    const second = first.append([call('call-1')]);
    const after = second.index();
    expect(after).toBe(before);
    expect(after.length).toBe(2);
    expect([...after.callIds]).toEqual(['call-1']);
  });

  it('stays with the shared array when a view is given out (a view is a copy)', () => {
    const first = Thread.of([say(1), call('call-1')]);
    const index = first.index();
    void first.messages;
    const second = call('call-2');
    const preview = first.append([second]);
    const committed = first.append([second, say(2)]);
    expect(preview.index()).toBe(index);
    expect(committed.index()).toBe(index);
    expect([...index.callIds]).toEqual(['call-1', 'call-2']);
  });

  it('holds only the facts of its own thread, for a fork and for a shorter thread', () => {
    const base = Thread.of([say(1)]);
    const left = base.append([call('left')]);
    expect([...left.index().callIds]).toEqual(['left']);
    const right = base.append([call('right'), say(2)]);
    expect([...right.index().callIds]).toEqual(['right']);
    expect([...left.index().callIds]).toEqual(['left']);
    expect([...base.index().callIds]).toEqual([]);
    // A fork of a view whose thread went on.
    void left.messages;
    const fork = left.append([call('fork')]);
    const other = left.append([call('other')]);
    expect([...fork.index().callIds]).toEqual(['left', 'fork']);
    expect([...other.index().callIds]).toEqual(['left', 'other']);
  });

  it('is kept for the threads released last, and built again in one pass for older ones', () => {
    const paused = Thread.of([call('a')]);
    const index = paused.index();
    paused.releaseIndex();
    expect(paused.index()).toBe(index);
    paused.releaseIndex();
    for (let n = 1; n <= 64; n++) {
      const other = Thread.of([say(n)]);
      other.index();
      other.releaseIndex();
    }
    const rebuilt = paused.index();
    expect(rebuilt).not.toBe(index);
    expect([...rebuilt.callIds]).toEqual(['a']);
  });

  it('of a running thread is kept however many others are released', () => {
    const running = Thread.of([say(0)]);
    const index = running.index();
    for (let n = 1; n <= 100; n++) {
      const other = Thread.of([say(n)]);
      other.index();
      other.releaseIndex();
    }
    expect(running.index()).toBe(index);
  });

  it('does not keep the threads of earlier steps alive', async () => {
    let thread = Thread.of([]);
    const earlier: WeakRef<Thread>[] = [];
    for (let n = 0; n < 20; n++) {
      thread = thread.append([say(n)]);
      // As an agent turn does: a view and the index of the thread it sees.
      void thread.messages;
      expect(thread.index().length).toBe(n + 1);
      if (n < 19) earlier.push(new WeakRef(thread));
    }
    await collect();
    expect(earlier.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    expect(thread.length).toBe(20);
  });
});

describe('an object carrying a thread', () => {
  it("reads as the thread's view; a context's property may be assigned another array", () => {
    const message = say(1);
    const thread = Thread.of([message]);
    const state = {};
    carryThread(state, 'thread', thread);
    Object.freeze(state);
    expect(state.thread).toBe(thread.messages);
    expect(carriedThread(state)).toBe(thread);
    expect(JSON.stringify(state)).toBe(JSON.stringify({ thread: [message] }));
    expect(() => Object.assign(state, { thread: [] })).toThrow(TypeError);
    const ctx = { sessionId: 's' };
    carryThread(ctx, 'conversation', thread);
    const filtered = [say('filtered')];
    ctx.conversation = filtered;
    expect(ctx.conversation).toBe(filtered);
    expect(carriedThread(ctx)).toBeUndefined();
    expect({ ...ctx }).toEqual({ sessionId: 's', conversation: filtered });
  });
});
