import { stat } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import type { DevWorkflow } from '../devtools/hub-types.js';
import { isRecord } from '../unknown-value.js';
import { UsageError } from './cli-args.js';

/** A workflow or team as the CLI drives it (built by whichever copy of Baton the module imports). */
export interface CliWorkflow extends DevWorkflow {
  readonly name?: unknown;
  toMermaid?(): string;
}

/** What the CLI found in a workflow module. */
export interface WorkflowModule {
  /** The path as the user gave it. */
  readonly path: string;
  readonly workflow: CliWorkflow;
  /** A name for headers: the workflow's name, its machine's id, or the file name. */
  readonly name: string;
  /** The `terminationCondition` export, when there is one (the devtools show its progress). */
  readonly terminationCondition?: unknown;
  /** True when `workflow` came from `createWorkflow({ checkpointStore })` with the CLI's store. */
  readonly storeGiven: boolean;
}

let registered = false;

/** The largest module the CLI loads: a bundle fits; a data file or a disk image is a mistake. */
const MAX_MODULE_BYTES = 16 * 1024 * 1024;

/** Extensions that only load through tsx. */
const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx']);

/**
 * Lets `import()` load TypeScript, so modules need no build step: tsx's ESM loader, and its
 * CommonJS one for `.ts` files outside an ESM package (no `"type": "module"`), which Node loads
 * as CommonJS. tsx is an optional peer dependency, imported only when a `.ts` module is met, so a
 * project of plain JavaScript modules installs without it.
 */
async function registerTypeScript(fail: (text: string) => never, path: string): Promise<void> {
  if (registered) return;
  let loaders: [{ register(): unknown }, { register(): unknown }];
  try {
    loaders = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
  } catch {
    return fail(
      `${path} is TypeScript, and loading it needs the optional peer dependency "tsx", which is not installed. ` +
        'Install it (`npm install --save-dev tsx`) or give a compiled .js module.',
    );
  }
  loaders[0].register();
  loaders[1].register();
  registered = true;
}

/** A module loaded as CommonJS arrives with its exports object as the default export. */
function exportsOf(loaded: Record<string, unknown>): Record<string, unknown> {
  const commonJs = loaded.default;
  return loaded.workflow === undefined &&
    loaded.createWorkflow === undefined &&
    isRecord(commonJs) &&
    !isWorkflow(commonJs)
    ? commonJs
    : loaded;
}

/** A built workflow or team: what has `session()` is taken for one. */
function isWorkflow(value: unknown): value is CliWorkflow {
  return isRecord(value) && typeof value.session === 'function';
}

/** A `HandoffBuilder` (or any builder) exported before `.build()` was called. */
function isBuilder(value: unknown): boolean {
  return isRecord(value) && typeof value.build === 'function';
}

/** The first line of an error ("... failed with 1 error:" takes the line that names it too). */
function firstLine(error: unknown): string {
  const lines = (error instanceof Error ? error.message : String(error))
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const [first = 'unknown error', second] = lines;
  return first.endsWith(':') && second !== undefined ? `${first} ${second}` : first;
}

/**
 * Loads a workflow module: a `.ts` or `.js` file whose export named `workflow` (or default export)
 * is a built `HandoffWorkflow` or team. With `checkpointStore`, the module must also export
 * `createWorkflow({ checkpointStore })`, which the CLI calls to build the workflow on that store.
 * An optional `terminationCondition` export lets the devtools show how close it is to firing.
 * Every problem is a one-line `UsageError` prefixed with `baton <command>:`.
 */
export async function loadWorkflowModule(
  command: string,
  path: string,
  options: { checkpointStore?: CheckpointStore; storeFlag?: string } = {},
): Promise<WorkflowModule> {
  // Typed on the name, so that TypeScript narrows after each call.
  const fail: (text: string) => never = (text) => {
    throw new UsageError(`baton ${command}: ${text}`);
  };
  const absolute = resolve(path);
  const info = await stat(absolute).catch(() => undefined);
  if (info === undefined) fail(`no such file "${path}".`);
  if (info?.isDirectory() === true) fail(`"${path}" is a directory, not a workflow module.`);
  // Loading reads the whole file: a device (/dev/zero), a pipe or a huge file would never finish.
  if (info?.isFile() !== true) {
    fail(
      `"${path}" is not a regular file (a device, pipe or socket), so it cannot be a workflow module.`,
    );
  }
  const size = info?.size ?? 0;
  if (size > MAX_MODULE_BYTES) {
    fail(
      `"${path}" is ${(size / 1024 / 1024).toFixed(1)} MB, more than a workflow module's ` +
        `${MAX_MODULE_BYTES / 1024 / 1024} MB: give the module that exports the workflow.`,
    );
  }

  if (TYPESCRIPT.has(extname(absolute).toLowerCase())) await registerTypeScript(fail, path);
  let loaded: Record<string, unknown>;
  try {
    const namespace: unknown = await import(pathToFileURL(absolute).href);
    loaded = exportsOf(isRecord(namespace) ? namespace : {});
  } catch (error) {
    return fail(`${path} could not be loaded: ${firstLine(error)}`);
  }

  let workflow: CliWorkflow;
  let storeGiven = false;
  if (options.checkpointStore !== undefined) {
    const create = loaded.createWorkflow;
    if (typeof create !== 'function') {
      fail(
        `${options.storeFlag ?? '--store'} needs ${path} to export createWorkflow({ checkpointStore }); ` +
          'it exports only a built workflow, whose sessions are kept where its own withCheckpointing() says.',
      );
    }
    let built: unknown;
    try {
      built = await create({ checkpointStore: options.checkpointStore });
    } catch (error) {
      return fail(`createWorkflow() of ${path} failed: ${firstLine(error)}`);
    }
    if (!isWorkflow(built)) {
      return fail(
        isBuilder(built)
          ? `createWorkflow() of ${path} returned a builder, not a workflow: did you forget .build()?`
          : `createWorkflow() of ${path} did not return a workflow or team.`,
      );
    }
    workflow = built;
    storeGiven = true;
  } else {
    const exported = loaded.workflow ?? loaded.default;
    if (exported === undefined) {
      fail(
        `${path} exports no workflow: export a built HandoffWorkflow or team as "workflow" (or as the default export).`,
      );
    }
    if (!isWorkflow(exported)) {
      const which = loaded.workflow === undefined ? 'default' : '"workflow"';
      return fail(
        isBuilder(exported)
          ? `the ${which} export of ${path} is a builder, not a workflow: did you forget .build()?`
          : `the ${which} export of ${path} is not a workflow or team (it has no session() method).`,
      );
    }
    workflow = exported;
  }

  const built = workflow;
  const name =
    typeof built.name === 'string'
      ? built.name
      : typeof built.machine?.id === 'string'
        ? built.machine.id
        : basename(path);
  return {
    path,
    workflow: built,
    name,
    ...(loaded.terminationCondition === undefined
      ? {}
      : { terminationCondition: loaded.terminationCondition }),
    storeGiven,
  };
}
