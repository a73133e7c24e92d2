import type { z } from 'zod';

import { ConfigError } from '../errors.js';
import type { FunctionCall } from '../messages/message.js';
import type { ToolSchema } from '../models/chat-client.js';
import { firstIssue } from '../zod-issues.js';
import { isZodSchema, TOOL_NAME, toObjectSchema } from './tool.js';

/** The zod object schema of a handoff's brief: the fields the model fills in when it hands off. */
export type HandoffBrief = z.ZodObject;

/** Options of `Handoff`. */
export interface HandoffOptions {
  /** The agent (or `"user"`) that takes over. */
  target: string;
  /** The tool name the model calls. @default `handoff_to_${target}` */
  name?: string;
  /** What the model is told the tool does. @default `Handoff to ${target}.` */
  description?: string;
  /**
   * The tool result and the `HandoffMessage` content.
   * @default `Transferred to ${target}, adopting the role of ${target} immediately.`
   */
  message?: string;
  /**
   * What the agent tells `target` when it hands off: the tool's parameters. A call is checked
   * against it (a failing brief is an error result for the model, not a handoff) and the checked
   * value is recorded as the `HandoffMessage`'s `brief`. @default none: the tool has no parameters
   */
  brief?: HandoffBrief | undefined;
}

/** A handoff call read against its handoff's brief. */
export type BriefCheck =
  { readonly ok: true; readonly brief: unknown } | { readonly ok: false; readonly error: string };

const NO_PARAMETERS = Object.freeze({
  type: 'object',
  properties: {},
  additionalProperties: false,
});
const NO_BRIEF: BriefCheck = Object.freeze({ ok: true, brief: undefined });

/**
 * A way for an agent to pass control to `target`: the model sees a tool (`handoff_to_<target>`
 * unless named) whose parameters are the `brief`'s fields (none without one), and calling it ends
 * the agent's turn with a `HandoffMessage` that carries the brief.
 *
 * @example new Agent({ name: 'triage', client, handoffs: ['billing', new Handoff({ target: 'user' })] })
 * @example new Handoff({ target: 'billing', brief: z.object({ invoiceId: z.string() }) })
 * @throws ConfigError for an empty target, a tool name providers reject, or a brief that is not a
 *   zod object schema.
 */
export class Handoff {
  readonly target: string;
  readonly name: string;
  readonly description: string;
  readonly message: string;
  readonly brief: HandoffBrief | undefined;
  readonly #parameters: Record<string, unknown>;

  constructor(options: HandoffOptions) {
    const { target } = options;
    if (typeof target !== 'string' || target === '') {
      throw new ConfigError(
        `Handoff needs a \`target\`: the name of the agent that takes over, got ${JSON.stringify(target)}.`,
        { path: 'target' },
      );
    }
    const name = options.name ?? `handoff_to_${target}`;
    if (!TOOL_NAME.test(name)) {
      throw new ConfigError(
        `Handoff to "${target}": tool name "${name}" is invalid. Tool names are 1 to 64 letters, ` +
          'digits, "_" or "-"; pass a valid `name`.',
        { path: 'name' },
      );
    }
    this.target = target;
    this.name = name;
    this.description = options.description ?? `Handoff to ${target}.`;
    this.message =
      options.message ?? `Transferred to ${target}, adopting the role of ${target} immediately.`;
    this.brief = checkBrief(`Handoff to "${target}"`, options.brief);
    this.#parameters = this.brief === undefined ? NO_PARAMETERS : toObjectSchema(name, this.brief);
  }

  /** The tool the model is offered. */
  get schema(): ToolSchema {
    return { name: this.name, description: this.description, parameters: this.#parameters };
  }

  /** `call`'s brief, checked: the value to record, or the error the model is told. */
  readBrief(call: FunctionCall): BriefCheck {
    const schema = this.brief;
    if (schema === undefined) return NO_BRIEF;
    let args: unknown;
    try {
      args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
    } catch {
      return {
        ok: false,
        error:
          `Handoff to "${this.target}" was not made: the arguments of ${this.name} are not valid ` +
          'JSON. Call it again with a JSON object of the brief.',
      };
    }
    const parsed = schema.safeParse(args);
    if (parsed.success) return { ok: true, brief: parsed.data };
    const issue = firstIssue(parsed.error);
    return {
      ok: false,
      error:
        `Handoff to "${this.target}" was not made: the brief is invalid at ${issue.text}. ` +
        `Call ${this.name} again with \`${issue.path}\` fixed.`,
    };
  }
}

/** `brief` when it is absent or a zod object schema. @throws ConfigError naming `where`. */
export function checkBrief(where: string, brief: unknown): HandoffBrief | undefined {
  if (brief === undefined || isZodObject(brief)) return brief;
  throw new ConfigError(
    `${where}: \`brief\` must be a zod object schema such as z.object({ reason: z.string() }).`,
    { path: 'brief' },
  );
}

function isZodObject(value: unknown): value is HandoffBrief {
  return isZodSchema(value) && value._zod.def.type === 'object';
}
