// Issue 43 #12: an input sent again with the same message id (a client retrying after a timeout),
// with a dispatcher, is answered with the run that took it; it is not queued, nor run, again.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

import type { TaskResult } from '../../src/index.js';
import {
  answer,
  authenticate,
  Backend,
  closeAll,
  desk,
  request,
  server,
  unique,
  worker,
} from '../independent/workers/support.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const backends: Backend[] = [];
afterEach(async () => {
  await closeAll();
});
afterAll(async () => {
  for (const b of backends) await b.drop();
});

describe.each(['pg-boss', 'bullmq'] as const)('an input sent twice (%s)', (kind) => {
  it('is answered both times with the run that took it, made once', async () => {
    const b = new Backend(kind);
    backends.push(b);
    const name = `resent-${unique()}`;
    const front = desk({ store: b.store(), label: 'server', name });
    const handler = server(front.workflow, { authenticate, dispatcher: b.dispatcher() });
    const back = desk({ store: b.store(), label: 'w', name });
    await worker(back.workflow, { dispatcher: b.dispatcher() });
    await answer(handler.fetch(request('POST', '/sessions', { id: 's1' })));
    const input = {
      type: 'TextMessage',
      id: `input-${unique()}`,
      source: 'user',
      content: 'hello',
      createdAt: new Date().toISOString(),
      metadata: {},
    };
    const first = await answer(handler.fetch(request('POST', '/sessions/s1/runs', { input })));
    const again = await answer(handler.fetch(request('POST', '/sessions/s1/runs', { input })));
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect((first.json as TaskResult).messages[0]).toMatchObject({ id: input.id });
    expect(back.counts).toEqual({ triage: 1, billing: 1 });
    const users = (await front.workflow.session('s1').messages()).filter(
      (m) => m.source === 'user',
    );
    expect(users.map((m) => m.id)).toEqual([input.id]);
  });
});
