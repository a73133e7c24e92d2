/** Child processes of the worker tests: servers, workers and `baton worker`, each killable. */
import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

import { bundledScript } from './bundled-script.js';

const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules/tsx/dist/esm/index.mjs');
const CLI = 'src/cli/main.ts';

/** The CLI runs as `npm start` runs it (tsx: it loads the user's TypeScript module); a script of
 * the tests runs bundled (see bundled-script.ts). */
const command = (script: string): string[] =>
  script === CLI ? ['--import', tsx, join(root, script)] : [bundledScript(script)];

export interface Child {
  readonly process: ChildProcess;
  /** Resolves with the first match group of `printed` in its output (rejects if it exits first). */
  readonly printed: Promise<string>;
  /** Resolves with its exit code (or signal name). */
  readonly exited: Promise<number | string>;
  output(): string;
}

/** Starts `node <script> ...args` from the checkout. */
export function startChild(
  script: string,
  args: readonly string[],
  printed: RegExp,
  env: Record<string, string> = {},
): Child {
  const child = spawn(process.execPath, [...command(script), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | string>((done) =>
    child.once('close', (code, signal) => done(code ?? signal ?? -1)),
  );
  const shown = new Promise<string>((done, fail) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = printed.exec(out);
      if (match?.[1] !== undefined) done(match[1]);
    });
    void exited.then((code) => fail(new Error(`${script} exited with ${code}: ${err}`)));
  });
  shown.catch(() => {});
  return { process: child, printed: shown, exited, output: () => out + err };
}

/** Stops `child` (SIGTERM, then SIGKILL after `ms`) and waits for it. */
export async function stopChild(child: Child, ms = 15_000): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), ms);
  await child.exited;
  clearTimeout(timer);
}
