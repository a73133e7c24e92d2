import { applyPatches, enablePatches, freeze, type Patch, produceWithPatches } from 'immer';
import type { z } from 'zod';

import { ConfigError } from '../errors.js';
import { isRecord } from '../unknown-value.js';
import { firstIssue } from '../zod-issues.js';

enablePatches();

/** A session's conversation state: one JSON object, deep-frozen when read. */
export type StateValue = Record<string, unknown>;

/** Changes a draft of the state in place (immer), or returns a whole new state. */
export type StateRecipe = (draft: StateValue) => unknown;

/** One RFC 6902 JSON Patch operation, as a step records a state change. */
export interface StatePatchOp {
  readonly op: 'add' | 'remove' | 'replace';
  /** A JSON Pointer (RFC 6901): `/customer/id`. */
  readonly path: string;
  readonly value?: unknown;
}

/** What is wrong with a state (the field's path and the reason), or undefined when it is valid. */
export type StateProblem = { readonly path: string; readonly text: string } | undefined;

/** The `state` option of a workflow or team: the schema and the value a new session starts with. */
export interface StateOption<S extends z.ZodType = z.ZodType> {
  schema: S;
  initial: z.input<S>;
  /**
   * The version of the state's shape, recorded with each session's records. Raise it when a
   * stored state needs `migrate` to fit the schema. @default 1
   */
  version?: number;
  /**
   * Turns the state of a session stored with an older `version` (`from`) into one the schema
   * accepts; its result is committed with the session's next step. @default none (the stored
   * state is checked as it is)
   */
  migrate?: (old: unknown, from: number) => unknown;
}

/** The empty state of a workflow without a `state` option (frozen, shared). */
export const EMPTY_STATE: StateValue = Object.freeze({});

/**
 * Checks a state: with a schema, against it; without one, that it is a JSON object (plain objects,
 * arrays, strings, finite numbers, booleans and null only).
 */
export function stateProblem(schema: z.ZodType | undefined, value: unknown): StateProblem {
  if (!isRecord(value)) return { path: '(root)', text: 'the state must be a JSON object' };
  const bad = nonJson(value, '', []);
  if (bad !== undefined) return { path: bad.path, text: `${bad.path}${bad.text}` };
  if (schema === undefined) return undefined;
  const parsed = schema.safeParse(value);
  if (parsed.success) return undefined;
  const issue = firstIssue(parsed.error);
  return { path: issue.path, text: issue.text };
}

/**
 * Keys no object of the state may have: a JSON Patch through them is refused when a stored session
 * is read back (they reach an object's prototype), and copying a value holding an own
 * `__proto__` sets its prototype instead. Refused when the state is changed, so a state accepted
 * live is the state a reload gives.
 */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor']);

/** The values from the root to the one being checked, with their paths (to find a cycle). */
type Ancestors = { readonly value: object; readonly at: string }[];

function nonJson(
  value: unknown,
  at: string,
  ancestors: Ancestors,
): { path: string; text: string } | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  const path = at || '(root)';
  if (typeof value === 'number') {
    return Number.isFinite(value) ? undefined : { path, text: ' is not a JSON value' };
  }
  const plain =
    Array.isArray(value) || (isRecord(value) && Object.getPrototypeOf(value) === Object.prototype);
  if (!plain) return { path, text: ' is not a JSON value' };
  const loop = ancestors.find((a) => a.value === value);
  if (loop !== undefined) {
    return {
      path,
      text: `: it refers back to ${loop.at || 'the state'} (a cycle), which JSON cannot hold`,
    };
  }
  const inner = [...ancestors, { value, at }];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = nonJson(value[i], `${at}[${i}]`, inner);
      if (bad !== undefined) return bad;
    }
    return undefined;
  }
  for (const [key, member] of Object.entries(value)) {
    const where = at === '' ? key : `${at}.${key}`;
    if (RESERVED_KEYS.has(key)) {
      return {
        path: where,
        text:
          `: an object of the state may not have the key "${key}" (it would not come back ` +
          'from the store); rename it',
      };
    }
    const bad = nonJson(member, where, inner);
    if (bad !== undefined) return bad;
  }
  return undefined;
}

/** A JSON Pointer's token (RFC 6901): `~` and `/` escaped. */
const token = (key: string | number) => String(key).replaceAll('~', '~0').replaceAll('/', '~1');

function toOps(patches: readonly Patch[]): StatePatchOp[] {
  return patches.map((p) => {
    const path = p.path.map((key) => `/${token(key)}`).join('');
    return p.op === 'remove' ? { op: p.op, path } : { op: p.op, path, value: p.value };
  });
}

/**
 * `base` with the RFC 6902 operations `ops` applied (a new frozen value sharing what they leave).
 * @throws Error naming the operation when it reaches outside the state (a missing parent, or a
 *   `replace`/`remove` of a missing member) or is no `add`/`remove`/`replace`.
 */
export function applyStateOps(base: StateValue, ops: readonly unknown[]): StateValue {
  const patches: Patch[] = [];
  let probe: StateValue = base;
  for (const raw of ops) {
    const op = isRecord(raw) ? raw.op : undefined;
    const pointer = isRecord(raw) ? raw.path : undefined;
    if ((op !== 'add' && op !== 'remove' && op !== 'replace') || typeof pointer !== 'string') {
      throw new Error(`the state patch ${JSON.stringify(raw)} is no add, remove or replace`);
    }
    if (pointer === '' && op !== 'remove') {
      // The whole document (RFC 6902): a recipe that returned a new state. It must be an object.
      const value = isRecord(raw) ? raw.value : undefined;
      if (!isRecord(value)) {
        throw new Error(`the state patch ${op} "" replaces the state with something not an object`);
      }
      const whole: Patch = { op: 'replace', path: [], value };
      patches.push(whole);
      probe = applyPatches(probe, [whole]);
      continue;
    }
    if (!pointer.startsWith('/')) {
      throw new Error(`the state patch ${op} ${JSON.stringify(pointer)} does not name a member`);
    }
    const path = pointer
      .slice(1)
      .split('/')
      .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
    let parent: unknown = probe;
    for (const key of path.slice(0, -1)) {
      parent = isRecord(parent) || Array.isArray(parent) ? own(parent, key) : undefined;
    }
    const last = path.at(-1) ?? '';
    const exists = (isRecord(parent) || Array.isArray(parent)) && own(parent, last) !== undefined;
    const container = isRecord(parent) || Array.isArray(parent);
    if (!container || (op !== 'add' && !exists) || ['__proto__', 'constructor'].includes(last)) {
      throw new Error(`the state patch ${op} ${pointer} reaches outside the state`);
    }
    const patch: Patch = { op, path: Array.isArray(parent) ? path.map(index) : path };
    if (op !== 'remove') patch.value = isRecord(raw) ? raw.value : undefined;
    patches.push(patch);
    probe = applyPatches(probe, [patch]);
  }
  return freeze(probe, true);
}

const index = (key: string) => (/^\d+$/.test(key) ? Number(key) : key);

function own(container: object, key: string): unknown {
  return Object.hasOwn(container, key) ? Reflect.get(container, key) : undefined;
}

/**
 * Runs `recipe` on a draft of `base` and checks the result.
 * @throws ConfigError naming the field when the new state fails the check; the recipe's own error.
 */
export function produceState(
  base: StateValue,
  recipe: StateRecipe,
  schema: z.ZodType | undefined,
  where: string,
): { value: StateValue; ops: StatePatchOp[] } {
  if (typeof recipe !== 'function') {
    throw new ConfigError(`${where}: the recipe must be a function (draft) => void.`, {
      path: 'recipe',
    });
  }
  let replacedByArray = false;
  const [value, patches] = produceWithPatches(base, (draft: StateValue): StateValue | undefined => {
    // `(d) => (d.flag = true)` returns what it assigned: only a new object replaces the state.
    const out = recipe(draft);
    if (Array.isArray(out)) replacedByArray = true;
    return isRecord(out) ? out : undefined;
  });
  if (replacedByArray) {
    throw new ConfigError(
      `${where}: the recipe returned an array; the state must be a JSON object. Change the draft ` +
        'in place, or return a whole new object. The state is unchanged.',
      { path: 'state' },
    );
  }
  const problem = stateProblem(schema, value);
  if (problem !== undefined) {
    throw new ConfigError(
      `${where}: the new state is invalid at ${problem.text}; the state is unchanged.`,
      { path: `state.${problem.path}` },
    );
  }
  return { value: freeze(value, true), ops: toOps(patches) };
}
