/**
 * A writer that stops itself with SIGSTOP between an append's check and its write, as a process
 * paused by an operator or stalled on a slow disk would: `node --import tsx stalled-writer.ts
 * <directory>`. It appends steps 1 and 2 of session "s", prints `stopping` and stops just before
 * writing step 3; once continued (SIGCONT) it prints `appended <true|false>` and exits.
 */
import { FileCheckpointStore } from '../../src/checkpoint/file-checkpoint-store.js';

class SelfStoppingStore extends FileCheckpointStore {
  protected override async beforeWrite(_sessionId: string, step: number): Promise<void> {
    if (step !== 3) return;
    // Writes to a pipe are synchronous on Linux: the line is out before the process stops.
    process.stdout.write('stopping\n');
    process.kill(process.pid, 'SIGSTOP');
  }
}

const directory = process.argv[2];
if (directory === undefined) throw new Error('usage: stalled-writer.ts <directory>');
const store = new SelfStoppingStore(directory);
await store.append('s', { step: 1, snapshot: true, data: 'one' });
await store.append('s', { step: 2, snapshot: false, data: 'two' });
const appended = await store.append('s', { step: 3, snapshot: false, data: 'three (stalled)' });
process.stdout.write(`appended ${appended}\n`);
