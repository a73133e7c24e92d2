import { MemoryCheckpointStore } from '../../src/checkpoint/memory-checkpoint-store.js';
import { describeCheckpointStore } from './checkpoint-store.contract.js';

describeCheckpointStore('MemoryCheckpointStore', async () => {
  const store = new MemoryCheckpointStore();
  return { a: store, b: store, close: () => store.close() };
});
