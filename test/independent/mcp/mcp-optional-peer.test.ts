// API.md §12, independent black-box suite: `@modelcontextprotocol/sdk` is an optional peer
// dependency, loaded only by `mcpTools`. In a child process where the SDK cannot be resolved, the
// package entry still imports, and `mcpTools` rejects with an error that names the missing package
// (reading of "bad input → clear error": the message tells what to install).
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const blockSdk = pathToFileURL(join(here, 'support', 'block-sdk.mjs')).href;

describe('mcpTools: the SDK is an optional peer dependency', () => {
  it('the package imports without the SDK, and mcpTools says to install it', async () => {
    const probe = ['--import', tsx, '--import', blockSdk, join(here, 'support', 'sdk-probe.ts')];
    const { stdout, stderr } = await run(process.execPath, probe).catch(
      (error: { stdout: string; stderr: string }) => error,
    );
    expect(stdout, `the probe failed before printing its outcome:\n${stderr}`).not.toBe('');
    const outcome = JSON.parse(stdout.trim()) as {
      imported: boolean;
      rejected: boolean;
      message: string;
    };
    expect(outcome.imported).toBe(true);
    expect(outcome.rejected).toBe(true);
    expect(outcome.message).toContain('@modelcontextprotocol/sdk');
  });
});
