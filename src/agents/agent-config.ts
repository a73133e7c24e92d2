import type { Instructions } from './agent-instructions.js';

import { ConfigError } from '../errors.js';
import { Handoff } from './handoff.js';
import { isZodSchema, type Tool } from './tool.js';
import { zodJsonSchema } from './zod-json-schema.js';

/** The agent names the library accepts (they double as provider `name` fields). */
export const AGENT_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** Throws unless `name` is a valid agent name. */
export function checkAgentName(name: unknown): string {
  if (typeof name !== 'string' || !AGENT_NAME.test(name)) {
    throw new ConfigError(
      `Agent name ${JSON.stringify(name)} is invalid. Use a letter followed by up to 63 letters, ` +
        'digits, "_" or "-".',
      { path: 'name' },
    );
  }
  return name;
}

/** The agent's tools by name; throws on something that is not a tool or a repeated name. */
export function indexTools(agent: string, tools: readonly Tool[]): Map<string, Tool> {
  const byName = new Map<string, Tool>();
  tools.forEach((t, i) => {
    if (typeof t?.name !== 'string' || typeof t.execute !== 'function' || !t.schema) {
      throw new ConfigError(
        `Agent "${agent}": tools[${i}] is not a tool. Create tools with tool({ name, parameters, execute }).`,
        { path: `tools[${i}]` },
      );
    }
    if (byName.has(t.name)) {
      throw new ConfigError(
        `Agent "${agent}" has two tools named "${t.name}". Give each tool a unique name.`,
        { path: `tools[${i}]` },
      );
    }
    byName.set(t.name, t);
  });
  return byName;
}

/**
 * Adds `extra` handoffs to `base` (by tool name), skipping targets `base` already has. Throws
 * when a handoff targets the agent itself or its tool name is taken by a tool or another handoff.
 */
export function mergeHandoffs(
  agent: string,
  tools: ReadonlyMap<string, Tool>,
  base: ReadonlyMap<string, Handoff>,
  extra: readonly (string | Handoff)[],
): Map<string, Handoff> {
  const merged = new Map(base);
  const targets = new Set([...base.values()].map((h) => h.target));
  for (const item of extra) {
    const handoff = typeof item === 'string' ? new Handoff({ target: item }) : item;
    if (!(handoff instanceof Handoff)) {
      throw new ConfigError(
        `Agent "${agent}": a handoff must be a target name or a Handoff, got ${JSON.stringify(item)}.`,
        { path: 'handoffs' },
      );
    }
    if (handoff.target === agent) {
      throw new ConfigError(
        `Agent "${agent}" cannot hand off to itself. Remove "${agent}" from its handoffs.`,
        { path: 'handoffs' },
      );
    }
    if (targets.has(handoff.target)) continue;
    if (tools.has(handoff.name) || merged.has(handoff.name)) {
      throw new ConfigError(
        `Agent "${agent}": the handoff tool "${handoff.name}" (to "${handoff.target}") has the ` +
          'same name as another of its tools. Rename that tool or give the Handoff another name.',
        { path: 'handoffs' },
      );
    }
    targets.add(handoff.target);
    merged.set(handoff.name, handoff);
  }
  return merged;
}

/** Throws on a repeated target among the agent's own handoffs. */
export function checkDistinctTargets(agent: string, handoffs: readonly (string | Handoff)[]): void {
  const seen = new Set<string>();
  for (const item of handoffs) {
    const target = typeof item === 'string' ? item : item?.target;
    if (seen.has(target)) {
      throw new ConfigError(`Agent "${agent}" has two handoffs to "${target}". Keep one of them.`, {
        path: 'handoffs',
      });
    }
    seen.add(target);
  }
}

/** Throws unless `n` is a positive integer. */
export function checkMaxToolIterations(agent: string, n: unknown): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) {
    throw new ConfigError(
      `Agent "${agent}" needs \`maxToolIterations\` to be a positive integer, got ${JSON.stringify(n)}.`,
      { path: 'maxToolIterations' },
    );
  }
  return n;
}

/** Throws unless `handler` is a function or undefined. */
export function checkOnToolError<T>(agent: string, handler: T): T {
  if (handler !== undefined && typeof handler !== 'function') {
    throw new ConfigError(
      `Agent "${agent}" needs \`onToolError\` to be a function (error, { tool, callId, agent, sessionId }) => void, got ${JSON.stringify(handler)}.`,
      { path: 'onToolError' },
    );
  }
  return handler;
}

/** The JSON Schema a model is asked to answer in, derived from a zod `outputSchema`. */
export function outputJsonSchema(agent: string, schema: unknown): Record<string, unknown> {
  if (!isZodSchema(schema)) {
    throw new ConfigError(
      `Agent "${agent}" needs \`outputSchema\` to be a zod schema such as z.object({ ... }).`,
      { path: 'outputSchema' },
    );
  }
  return zodJsonSchema(schema, 'output', `Agent "${agent}": its outputSchema`, 'outputSchema');
}

/** `instructions` as given: a string, a function of the context, or none. */
export function checkInstructions(
  agent: string,
  instructions: string | Instructions | undefined,
): string | Instructions | undefined {
  if (instructions === undefined || typeof instructions === 'string') return instructions;
  if (typeof instructions === 'function') return instructions;
  throw new ConfigError(
    `Agent "${agent}": instructions must be a string or a function (ctx) => string, got ` +
      `${JSON.stringify(instructions)}.`,
    { path: 'instructions' },
  );
}
