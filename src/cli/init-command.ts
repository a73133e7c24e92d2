import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';

import { isRecord } from '../unknown-value.js';
import { type CommandSpec, parseCommandArgs, UsageError } from './cli-args.js';
import { DESK_TS, NEEDED, SCRIPTS, TSCONFIG } from './init-desk.js';

export const INIT_SPEC: CommandSpec = {
  command: 'init',
  options: [{ name: 'dir', value: 'a directory', example: '--dir my-desk' }],
  positionals: [],
};

export const INIT_HELP = `Usage: baton init [--dir <dir>]

Writes a desk that runs as it is into the current directory (or <dir>): desk.ts (a coordinator
and a billing specialist with a tool, on scripted stand-ins until the environment names a model),
the tsconfig.json it type-checks with, and package.json ("type": "module" and the scripts start,
dev, serve and typecheck). A file that exists is kept, and so is a script of the same name.
Then it prints what is left to install.

  --dir <dir>   where to write (default: the current directory; it must exist)
`;

/** A package.json as read: its fields, or a fresh one named after the directory. */
async function manifestIn(dir: string): Promise<Record<string, unknown> | undefined> {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw new UsageError(`baton init: ${file} is not JSON. Fix it or remove it, then run again.`);
  }
  if (!isRecord(value) || Array.isArray(value)) {
    throw new UsageError(`baton init: ${file} does not hold a JSON object.`);
  }
  return value;
}

/** The names of `names` that neither `dependencies` nor `devDependencies` of `manifest` lists. */
function missingOf(manifest: Record<string, unknown>, names: readonly string[]): string[] {
  const listed = (field: string) => {
    const value = manifest[field];
    return isRecord(value) ? Object.keys(value) : [];
  };
  const known = new Set([...listed('dependencies'), ...listed('devDependencies')]);
  return names.filter((name) => !known.has(name));
}

/** One line of what `baton init` did: the verb in a column of its own. */
const did = (verb: string, what: string) => `${verb.padEnd(8)} ${what}`;

/** `baton init [--dir <dir>]`: writes desk.ts, tsconfig.json and package.json's scripts. */
export async function initCommand(argv: readonly string[]): Promise<number> {
  const args = parseCommandArgs(INIT_SPEC, argv);
  if (args.help) {
    process.stdout.write(INIT_HELP);
    return 0;
  }
  const dir = resolve(args.options.get('dir') ?? '.');
  if (!existsSync(dir)) {
    throw new UsageError(
      `baton init: ${dir} does not exist. Make it first (mkdir), or pick another --dir.`,
    );
  }
  const lines: string[] = [];
  for (const [name, text] of [
    ['desk.ts', DESK_TS],
    ['tsconfig.json', `${JSON.stringify(TSCONFIG, null, 2)}\n`],
  ] as const) {
    const file = join(dir, name);
    if (existsSync(file)) {
      lines.push(did('kept', `${name} (it exists)`));
      continue;
    }
    await writeFile(file, text, { flag: 'wx' });
    lines.push(did('wrote', name));
  }
  const found = await manifestIn(dir);
  const manifest = found ?? {
    name: basename(dir)
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '-'),
    private: true,
  };
  const changes: string[] = [];
  if (manifest.type !== 'module') {
    if (manifest.type === undefined) {
      manifest.type = 'module';
      changes.push('"type": "module"');
    } else {
      lines.push(
        did(
          'note',
          `package.json has "type": ${JSON.stringify(manifest.type)}; desk.ts needs an ES ` +
            'module package ("type": "module")',
        ),
      );
    }
  }
  const scripts = isRecord(manifest.scripts) ? { ...manifest.scripts } : {};
  for (const [name, command] of Object.entries(SCRIPTS)) {
    if (scripts[name] === undefined) {
      scripts[name] = command;
      changes.push(`"${name}": "${command}"`);
    } else if (scripts[name] !== command) {
      lines.push(
        did('kept', `the "${name}" script of package.json (${JSON.stringify(scripts[name])})`),
      );
    }
  }
  manifest.scripts = scripts;
  if (found === undefined || changes.length > 0) {
    await writeFile(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    lines.push(
      did(found === undefined ? 'wrote' : 'updated', `package.json (${changes.join(', ')})`),
    );
  }
  const install = [
    ['npm install', missingOf(manifest, NEEDED.dependencies)],
    ['npm install --save-dev', missingOf(manifest, NEEDED.devDependencies)],
  ] as const;
  const commands = install.filter(([, names]) => names.length > 0);
  lines.push('');
  if (commands.length > 0) {
    lines.push('Install what the desk needs:');
    for (const [command, names] of commands) lines.push(`  ${command} ${names.join(' ')}`);
  }
  lines.push(
    'Then: npm start (talk to it here), npm run dev (the devtools page), npm run typecheck.',
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
