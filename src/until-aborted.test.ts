import { getEventListeners } from 'node:events';

import { describe, expect, it } from 'vitest';

import { untilAborted } from './until-aborted.js';

describe('untilAborted()', () => {
  it('rejects with the reason when the signal aborts before the value settles', async () => {
    const controller = new AbortController();
    const waiting = untilAborted(new Promise<never>(() => {}), controller.signal);
    controller.abort(new Error('left'));
    await expect(waiting).rejects.toThrow('left');
  });

  it('passes the value or the rejection through and leaves no listener behind', async () => {
    const controller = new AbortController();
    await expect(untilAborted(Promise.resolve(1), controller.signal)).resolves.toBe(1);
    await expect(untilAborted(Promise.reject(new Error('no')), controller.signal)).rejects.toThrow(
      'no',
    );
    await expect(untilAborted(2, undefined)).resolves.toBe(2);
    expect(getEventListeners(controller.signal, 'abort')).toEqual([]);
    controller.abort(new Error('late'));
    await expect(untilAborted(3, controller.signal)).rejects.toThrow('late');
  });

  it('leaves no unhandled rejection when the callback aborted the signal before it returned', async () => {
    const unhandled: unknown[] = [];
    const seen = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', seen);
    try {
      const controller = new AbortController();
      // As an agent does that aborts its run and then waits for the signal: the promise it hands
      // back rejects only after untilAborted() has already given up on it.
      controller.abort(new Error('stop'));
      const late = Promise.reject(new Error('late'));
      await expect(untilAborted(late, controller.signal)).rejects.toThrow('stop');
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', seen);
    }
  });
});
