import type { z } from 'zod';

import { ConfigError } from '../errors.js';
import type { ToolSchema } from '../models/chat-client.js';
import type { HandoffInfo } from '../messages/handoff-brief.js';
import { isRecord } from '../unknown-value.js';
import { checkedApprovers } from './approvers.js';
import type { StateRecipe, StateValue } from './conversation-state.js';
import { type JsonSchemaObject, jsonSchemaArguments } from './json-schema-arguments.js';
import { zodJsonSchema } from './zod-json-schema.js';

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  /** Aborted when the run is cancelled or the tool times out; pass it on to I/O. */
  signal: AbortSignal;
  sessionId: string;
  /** The name of the agent that called the tool. */
  agent: string;
  /**
   * The id of the model's call: the same after any resume, so a tool with side effects can use it
   * as an idempotency key (an approved call may run again after a crash before its result was
   * committed).
   */
  callId: string;
  /**
   * The conversation state: the state when the call's batch began plus this call's
   * own updates, deep-frozen.
   */
  readonly state: StateValue;
  /**
   * Changes the state with `recipe` on an immer draft. The new state is checked at once (an
   * invalid one throws `ConfigError` and changes nothing); the updates count when the call
   * succeeds, applied with the batch's others in call order when the batch ends.
   */
  updateState(recipe: StateRecipe): void;
  /** The handoff that gave the agent the floor (who, and the brief), until the next handoff. */
  readonly handoff?: HandoffInfo;
}

/** Whether a call needs a person's approval before it runs: fixed, or decided per call. */
export type NeedsApproval<Args> =
  | boolean
  // Method syntax: a tool of specific arguments is still a `Tool` (as with `execute`).
  | { decide(args: Args, ctx: ToolContext): boolean | Promise<boolean> }['decide'];

/** What `tool()` accepts as `parameters`: a zod object schema or a JSON Schema object. */
export type ToolParameters = z.ZodType | JsonSchemaObject;

/** The arguments `execute` receives: the zod schema's output, or a plain object for JSON Schema. */
export type ToolArguments<S extends ToolParameters> = S extends z.ZodType
  ? z.output<S>
  : Record<string, unknown>;

/** Options of `tool()`. */
export interface ToolOptions<S extends ToolParameters> {
  /** 1 to 64 letters, digits, `_` or `-`: what model providers accept. */
  name: string;
  /** What the tool does, for the model. @default '' */
  description?: string;
  /**
   * The arguments: a zod object schema, from which the JSON Schema the model sees is derived, or
   * a JSON Schema object (`{ type: 'object', ... }`), which the model sees unchanged and which
   * arguments are checked against (with Ajv) before `execute` runs.
   */
  parameters: S;
  /** Runs the tool with validated arguments; a string is sent as is, anything else as JSON. */
  execute: (args: ToolArguments<S>, ctx: ToolContext) => unknown;
  /** How long a call may take before it becomes an error result. @default 60_000 */
  timeoutMs?: number;
  /**
   * A call pauses the agent's turn until the user approves or rejects it; a function
   * decides per call from the validated arguments. @default false
   */
  needsApproval?: NeedsApproval<ToolArguments<S>>;
  /**
   * The role (or roles) whose holders may decide the call's approval, or decide it when it is in
   * doubt: anyone else, the session's owner included, is refused. Needs `needsApproval`.
   * @default none: the session's owner (or the application) decides
   */
  approvers?: string | readonly string[];
  /**
   * What running the call again after a crash would do: `"read"` nothing, so it may;
   * `"idempotent"` nothing more when keyed by `ctx.callId`, so it may; `"once"` something that
   * must not happen twice, so the call's start is committed before it runs, and a call whose
   * outcome was lost is in doubt, for a person to decide. @default "once"
   */
  effect?: ToolEffect;
}

/** What running a tool call again would do; see `ToolOptions.effect`. */
export type ToolEffect = 'read' | 'idempotent' | 'once';

const EFFECTS: readonly string[] = ['read', 'idempotent', 'once'];

/** A function a model can call, made by `tool()`. */
export interface Tool<Args = unknown> {
  readonly name: string;
  readonly description: string;
  readonly parameters: z.ZodType<Args>;
  /** What the model is sent: name, description and JSON Schema of the arguments. */
  readonly schema: ToolSchema;
  readonly timeoutMs: number;
  readonly needsApproval: NeedsApproval<Args>;
  /** The roles that may decide its calls (see `ToolOptions.approvers`); none: the owner. */
  readonly approvers?: readonly string[];
  /** See `ToolOptions.effect`; a tool made without `tool()` that lacks it counts as `"once"`. */
  readonly effect?: ToolEffect;
  execute(args: Args, ctx: ToolContext): unknown;
}

/** The tool names model providers accept. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Defines a tool. Arguments are validated with `parameters` before `execute` runs; invalid JSON
 * or arguments, a thrown error or a timeout become an error result the model sees, naming the
 * tool, never an exception.
 *
 * @example
 * const lookup = tool({
 *   name: 'lookup_invoice',
 *   description: 'Finds an invoice by id.',
 *   parameters: z.object({ invoiceId: z.string() }),
 *   execute: async ({ invoiceId }) => `Invoice ${invoiceId} is paid.`,
 * });
 * @example
 * const add = tool({
 *   name: 'add',
 *   parameters: {
 *     type: 'object',
 *     properties: { a: { type: 'number' }, b: { type: 'number' } },
 *     required: ['a', 'b'],
 *   },
 *   execute: ({ a, b }) => String(Number(a) + Number(b)),
 * });
 * @throws ConfigError for a bad name, a schema that is not an object schema, a bad timeout or a
 *   bad `needsApproval`.
 */
export function tool<S extends ToolParameters>(options: ToolOptions<S>): Tool<ToolArguments<S>> {
  const {
    name,
    description = '',
    parameters,
    execute,
    timeoutMs = DEFAULT_TIMEOUT_MS,
    needsApproval = false,
    effect = 'once',
  } = options;
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw new ConfigError(
      `tool(): name ${JSON.stringify(name)} is invalid. Use 1 to 64 letters, digits, "_" or "-".`,
      { path: 'name' },
    );
  }
  if (typeof execute !== 'function') {
    throw new ConfigError(`Tool "${name}" needs an \`execute\` function.`, { path: 'execute' });
  }
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || !Number.isFinite(timeoutMs)) {
    throw new ConfigError(
      `Tool "${name}" needs \`timeoutMs\` to be a positive number of milliseconds, got ${timeoutMs}.`,
      { path: 'timeoutMs' },
    );
  }
  if (typeof needsApproval !== 'boolean' && typeof needsApproval !== 'function') {
    throw new ConfigError(
      `Tool "${name}" needs \`needsApproval\` to be a boolean or a function (args, ctx) => boolean, ` +
        `got ${JSON.stringify(needsApproval)}.`,
      { path: 'needsApproval' },
    );
  }
  if (typeof effect !== 'string' || !EFFECTS.includes(effect)) {
    throw new ConfigError(
      `Tool "${name}" needs \`effect\` to be "read", "idempotent" or "once", got ` +
        `${JSON.stringify(effect)}.`,
      { path: 'effect' },
    );
  }
  const approvers = checkedApprovers(name, options.approvers, needsApproval);
  const checked = isZodSchema(parameters)
    ? { validator: parameters, jsonSchema: toObjectSchema(name, parameters) }
    : fromJsonSchema(name, parameters);
  return Object.freeze({
    name,
    description,
    parameters: checked.validator as z.ZodType<ToolArguments<S>>,
    schema: { name, description, parameters: checked.jsonSchema },
    timeoutMs,
    needsApproval,
    effect,
    ...(approvers === undefined ? {} : { approvers }),
    execute,
  });
}

/**
 * A JSON Schema given as `parameters`: the model sees a copy of it unchanged (later changes to
 * the caller's object affect nothing) and arguments are checked against that copy.
 */
function fromJsonSchema(
  name: string,
  parameters: unknown,
): { validator: z.ZodType; jsonSchema: Record<string, unknown> } {
  if (!isRecord(parameters) || Array.isArray(parameters)) {
    throw new ConfigError(
      `Tool "${name}" needs \`parameters\` to be a zod schema such as z.object({ ... }) or a ` +
        'JSON Schema object such as { type: "object", properties: { ... } }.',
      { path: 'parameters' },
    );
  }
  const fields = Object.keys(parameters).filter((key) => isZodSchema(parameters[key]));
  if (parameters.type === undefined && fields.length > 0) {
    // `parameters: { invoiceId: z.string() }`: the fields of a z.object(), without the z.object().
    throw new ConfigError(
      `Tool "${name}" got a plain object of zod schemas as \`parameters\` (${fields.join(', ')}). ` +
        `Wrap it in z.object(): parameters: z.object({ ${fields.map((f) => `${f}: ...`).join(', ')} }).`,
      { path: 'parameters' },
    );
  }
  const type = parameters.type;
  if (type !== 'object') {
    throw new ConfigError(
      `Tool "${name}" needs its JSON Schema \`parameters\` to have type "object"; models send ` +
        `arguments as an object, but this schema has type ${JSON.stringify(type ?? null)}.`,
      { path: 'parameters.type' },
    );
  }
  try {
    // `type` keeps its place among the copy's keys: the model sees the schema as given.
    const jsonSchema: JsonSchemaObject = { ...structuredClone(parameters), type };
    return { validator: jsonSchemaArguments(jsonSchema), jsonSchema };
  } catch (error) {
    throw new ConfigError(
      `Tool "${name}": its JSON Schema \`parameters\` is invalid ` +
        `(${error instanceof Error ? error.message : String(error)}). Fix the schema.`,
      { path: 'parameters', cause: error },
    );
  }
}

/** The JSON Schema the model sees for zod `parameters` (an object schema). @throws ConfigError */
export function toObjectSchema(name: string, parameters: z.ZodType): Record<string, unknown> {
  const schema = zodJsonSchema(parameters, 'input', `Tool "${name}": its parameters`, 'parameters');
  if (schema.type !== 'object') {
    throw new ConfigError(
      `Tool "${name}" needs \`parameters\` to be a z.object({ ... }); models send arguments as ` +
        `an object, but this schema has type ${JSON.stringify(schema.type ?? null)}.`,
      { path: 'parameters' },
    );
  }
  return schema;
}

/** True for a zod (v4) schema. */
export function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === 'object' &&
    value !== null &&
    '_zod' in value &&
    'safeParse' in value &&
    typeof value.safeParse === 'function'
  );
}
