import { describe, expect, it } from 'vitest';

import { HandoffBuilder, MemoryCheckpointStore, SessionBusyError } from '../../src/index.js';
import { LEASE_TTL_MS } from '../../src/engine/log/checkpoint-link.js';
import { FakeAgent } from '../support/fake-agent.js';

// A process that dies holding a session's lease blocks the session until the lease expires
// (API.md §7: within 5 s). The SessionBusyError a second run meets says so, and by when.

const NOW = Date.parse('2026-11-26T12:00:00.000Z');

describe('SessionBusyError from a lease held elsewhere', () => {
  it('says the holder may be dead and when its lease expires at the latest', async () => {
    const clock = () => NOW;
    const store = new MemoryCheckpointStore({ clock });
    const agents = [new FakeAgent('triage', [{ say: 'Hello' }]), new FakeAgent('billing', [])];
    const workflow = new HandoffBuilder({ name: 'support', participants: agents })
      .coordinator('triage')
      .withCheckpointing(store, { clock })
      .build();
    // What a process killed mid-run leaves behind: a lease nobody will renew or release.
    expect(await store.acquireLease('t-1', 'a process that died', LEASE_TTL_MS)).toBe(true);

    const error = await workflow
      .session('t-1')
      .run('My invoice is wrong')
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SessionBusyError);
    expect((error as SessionBusyError).leaseExpiresBy).toEqual(new Date(NOW + LEASE_TTL_MS));
    expect((error as Error).message).toBe(
      'Session "t-1" is already running (another process holds its lease; if that process died, ' +
        'the lease expires by 2026-11-26T12:00:03.000Z and the session can run again then). ' +
        'Wait for its current run to finish or abort it before running it again.',
    );
  });

  it('has no expiry when the session runs in this very process', () => {
    const error = new SessionBusyError('t-2');
    expect(error.leaseExpiresBy).toBeUndefined();
    expect(error.message).toBe(
      'Session "t-2" is already running. Wait for its current run to finish or abort it before ' +
        'running it again.',
    );
  });
});
