import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules/tsx/dist/esm/index.mjs');

/** How long `baton` may take to print its address: well past a start on a busy machine (~1 s quiet). */
const STARTUP_MS = 60_000;

/**
 * Starts `baton <args>` from this checkout's sources (stopped with Ctrl-C by a cleanup pushed onto
 * `cleanups`) and resolves with the first match group of `printed` in what it prints; rejects with
 * its stderr if it exits first.
 */
export function startBaton(
  cleanups: (() => Promise<void> | void)[],
  args: readonly string[],
  printed: RegExp,
  env: Record<string, string> = {},
): Promise<string> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', tsx, join(root, 'src/cli/main.ts'), ...args],
    { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  cleanups.push(
    () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('close', () => done());
        child.kill('SIGINT');
      }),
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<string>((done, fail) => {
    let out = '';
    const timer = setTimeout(
      () =>
        fail(
          new Error(
            `baton ${args[0]} printed no ${printed} in ${STARTUP_MS / 1000} s; ` +
              `stdout: ${JSON.stringify(out)}, stderr: ${JSON.stringify(stderr)}`,
          ),
        ),
      STARTUP_MS,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = printed.exec(out);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      done(match[1]);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      fail(new Error(`baton ${args[0]} exited with ${code}: ${stderr}`));
    });
  });
}
