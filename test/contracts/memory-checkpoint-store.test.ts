import { MemoryCheckpointStore } from '../../src/checkpoint/memory-checkpoint-store.js';
import { describeCheckpointStore } from './checkpoint-store.contract.js';
import { describeSessionLifecycle } from './session-lifecycle.contract.js';

describeCheckpointStore('MemoryCheckpointStore', async () => {
  const store = new MemoryCheckpointStore();
  return { a: store, b: store, close: () => store.close() };
});

describeSessionLifecycle('MemoryCheckpointStore', async (clock) => {
  const store = new MemoryCheckpointStore({ clock });
  return {
    a: store,
    b: store,
    // Memory has no backend to look into: what its methods still show of the session.
    async traces(sessionId) {
      const traces: string[] = [];
      if ((await store.read(sessionId, { from: 'start' })).length > 0) traces.push('log');
      if ((await store.leaseHolder(sessionId)) !== null) traces.push('lease');
      const { sessions } = await store.list({ limit: 1000 });
      if (sessions.some((s) => s.id === sessionId)) traces.push('list');
      return traces;
    },
    close: () => store.close(),
  };
});
