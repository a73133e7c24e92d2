// Independent suite for API.md §25: `workflow.fingerprint`, which changes take a stored session
// over (an agent, a tool or an optional state field added, instructions changed) and which are a
// ConfigError naming the session (a pending approval of a tool that is gone, a pending request
// naming an agent that is gone). Written from API.md §25 (with §5–§7, §10, §18) alone.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

import { approve, ConfigError } from '../../../src/index.js';
import { desk, stateOf, STORES } from './support.js';

describe('§25 workflow.fingerprint', () => {
  it('is a string, equal for two builds of the same desk', () => {
    const a = desk().fingerprint;
    expect(typeof a).toBe('string');
    expect(a.length).toBeGreaterThan(0);
    expect(desk().fingerprint).toBe(a);
  });

  it('changes when an agent or a tool is added, not when only instructions change', () => {
    const base = desk().fingerprint;
    expect(desk({ extraAgent: true }).fingerprint).not.toBe(base);
    expect(desk({ lookup: true }).fingerprint).not.toBe(base);
    expect(desk({ instructions: 'Be brief, you handle billing.' }).fingerprint).toBe(base);
  });
});

const V1State = z.object({ customerId: z.string().nullable() });
const V1 = { schema: V1State, initial: { customerId: null } };
const V1Plus = {
  schema: V1State.extend({ note: z.string().optional() }),
  initial: { customerId: null },
};

describe.each(STORES)('§25 taking a stored session over ($name)', ({ make }) => {
  let dispose = () => {};
  afterEach(() => dispose());

  it.each([
    ['an agent added', { extraAgent: true }],
    ['a tool added', { lookup: true }],
    ['instructions changed', { instructions: 'You handle billing, politely.' }],
    ['an optional state field added', { state: V1Plus }],
  ])('%s: the paused session resumes and answers', async (_what, change) => {
    const made = make();
    dispose = made.dispose;
    const first = await desk({ store: made.store, state: V1 }).session('take-1').run('my invoice');
    expect(first.status).toBe('awaiting_input');
    expect(first.pendingRequest).toMatchObject({ agent: 'billing', prompt: 'billing: my invoice' });
    const before = await desk({ store: made.store, state: V1 }).session('take-1').messages();

    const next = desk({ store: made.store, state: V1, ...change }).session('take-1');
    expect((await next.messages()).length).toBe(before.length);
    const result = await next.run('still charged twice');
    expect(result.status).toBe('awaiting_input');
    expect(result.sessionId).toBe('take-1');
    expect(result.pendingRequest).toMatchObject({
      agent: 'billing',
      prompt: 'billing: still charged twice',
    });
    expect(await stateOf(next)).toEqual({ customerId: null });
  });

  it('a pending approval of a tool the new build lacks is a ConfigError naming the session', async () => {
    const made = make();
    dispose = made.dispose;
    const paused = await desk({ store: made.store, refund: true })
      .session('gone-tool-7')
      .run('refund please');
    expect(paused.pendingRequest?.kind).toBe('approval');
    const callId = paused.pendingRequest!.calls![0]!.id;

    const run = desk({ store: made.store }).session('gone-tool-7').run(approve(callId));
    await expect(run).rejects.toBeInstanceOf(ConfigError);
    await expect(
      desk({ store: made.store }).session('gone-tool-7').run(approve(callId)),
    ).rejects.toThrow(/gone-tool-7/);
  });

  it('a pending request naming an agent that is gone is a ConfigError naming the session', async () => {
    const made = make();
    dispose = made.dispose;
    const paused = await desk({ store: made.store, tech: true })
      .session('gone-agent-3')
      .run('tech');
    expect(paused.pendingRequest).toMatchObject({ agent: 'tech', prompt: 'tech: tech' });

    const run = desk({ store: made.store }).session('gone-agent-3').run('hello again');
    await expect(run).rejects.toBeInstanceOf(ConfigError);
    await expect(
      desk({ store: made.store }).session('gone-agent-3').run('hello again'),
    ).rejects.toThrow(/gone-agent-3/);
  });
});
