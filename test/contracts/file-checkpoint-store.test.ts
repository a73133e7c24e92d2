import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { FileCheckpointStore } from '../../src/checkpoint/file-checkpoint-store.js';
import { describeCheckpointStore } from './checkpoint-store.contract.js';

describeCheckpointStore('FileCheckpointStore', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'baton-file-store-'));
  return {
    a: new FileCheckpointStore(directory),
    b: new FileCheckpointStore(directory),
    close: () => rm(directory, { recursive: true, force: true }),
  };
});
