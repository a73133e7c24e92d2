import { ConfigError } from '../errors.js';
import type { ToolSchema } from '../models/chat-client.js';
import { TOOL_NAME } from './tool.js';

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
}

/**
 * A way for an agent to pass control to `target`: the model sees a tool without parameters
 * (`handoff_to_<target>` unless named), and calling it ends the agent's turn with a
 * `HandoffMessage`.
 *
 * @example new Agent({ name: 'triage', client, handoffs: ['billing', new Handoff({ target: 'user' })] })
 * @throws ConfigError for an empty target or a tool name providers reject.
 */
export class Handoff {
  readonly target: string;
  readonly name: string;
  readonly description: string;
  readonly message: string;

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
  }

  /** The tool the model is offered. */
  get schema(): ToolSchema {
    return {
      name: this.name,
      description: this.description,
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    };
  }
}
