// Run in a child process with block-sdk.mjs: imports the package entry (which must not need the
// SDK), then calls mcpTools and prints what happened as one JSON line.
import { mcpTools } from '../../../../src/index.js';

const outcome = await mcpTools({ command: process.execPath, args: ['--version'] }).then(
  async (handle) => {
    await handle.close();
    return { imported: true, rejected: false, message: '' };
  },
  (error: unknown) => ({
    imported: true,
    rejected: true,
    message: error instanceof Error ? error.message : String(error),
  }),
);
process.stdout.write(`${JSON.stringify(outcome)}\n`);
