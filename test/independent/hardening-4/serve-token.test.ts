// Issue 43, item 6: `baton serve --host <non-loopback>` accepted a BATON_TOKEN of 5 characters
// without a word. Reachable from other machines, a token shorter than 16 characters is refused,
// and the message says how long it is and how long it must be.
import { describe, expect, it } from 'vitest';

import { UsageError } from '../../../src/cli/cli-args.js';
import { serveCommand } from '../../../src/cli/serve-command.js';

const run = (host: string, token: string) =>
  serveCommand(['samples/no-such-module.ts', '--host', host, '--port', '0'], {
    BATON_TOKEN: token,
  }).then(
    () => undefined,
    (error: unknown) => error,
  );

describe('baton serve on a non-loopback --host', () => {
  for (const host of ['0.0.0.0', '192.168.1.20', '::']) {
    it(`refuses a 5-character BATON_TOKEN on ${host}, saying how long it must be`, async () => {
      const error = await run(host, 'abcde');
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toBe(
        `baton serve: BATON_TOKEN is 5 characters long; on --host ${host}, reachable from other ` +
          'machines, it must be at least 16 characters. Use a long random one, e.g. the output ' +
          'of "openssl rand -base64 24".',
      );
    });
  }

  it('refuses 15 characters and goes on with 16 (to the next check: the module)', async () => {
    expect(((await run('0.0.0.0', 'a'.repeat(15))) as Error).message).toMatch(
      /^baton serve: BATON_TOKEN is 15 characters long;/,
    );
    const next = (await run('0.0.0.0', 'a'.repeat(16))) as Error;
    expect(next.message).not.toMatch(/BATON_TOKEN/);
    expect(next.message).toContain('samples/no-such-module.ts');
  });

  it('keeps a short token on a loopback address (only this machine reaches it)', async () => {
    const next = (await run('127.0.0.1', 'abcde')) as Error;
    expect(next.message).not.toMatch(/BATON_TOKEN/);
    expect(next.message).toContain('samples/no-such-module.ts');
  });
});
