import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { FileCheckpointStore } from '../../src/checkpoint/file-checkpoint-store.js';
import { sessionStem } from '../../src/checkpoint/file-names.js';
import { describeCheckpointStore } from './checkpoint-store.contract.js';
import { describeSessionLifecycle } from './session-lifecycle.contract.js';

describeCheckpointStore('FileCheckpointStore', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'baton-file-store-'));
  return {
    a: new FileCheckpointStore(directory),
    b: new FileCheckpointStore(directory),
    close: () => rm(directory, { recursive: true, force: true }),
  };
});

describeSessionLifecycle('FileCheckpointStore', async (clock) => {
  const directory = await mkdtemp(join(tmpdir(), 'baton-file-lifecycle-'));
  return {
    a: new FileCheckpointStore(directory, { clock }),
    b: new FileCheckpointStore(directory, { clock }),
    // Every file or folder of the directory named after the session, temporary ones included.
    async traces(sessionId) {
      const stem = sessionStem(sessionId);
      return (await readdir(directory)).filter((name) => name.includes(stem));
    },
    close: () => rm(directory, { recursive: true, force: true }),
  };
});
