import { createHash } from 'node:crypto';

import { z } from 'zod';

import type { WorkflowDescriptor } from '../log/session-log.js';
import type { Orchestration } from '../orchestration.js';

/**
 * What a stored session depends on in the workflow that runs it: the orchestration's own
 * descriptor (participants, topology, routing), the states of its compiled machine, the tools each
 * agent may call and the shape and version of the conversation state. Instructions, models and
 * descriptions are left out: changing them never strands a session.
 */
export interface WorkflowIdentity {
  /** A short hash of `descriptor`, recorded with each session's records. */
  readonly fingerprint: string;
  readonly descriptor: WorkflowDescriptor;
  /** The conversation state's version (`StateOption.version`). */
  readonly stateVersion: number;
  /** Per participant: the names of the tools it may call; undefined when the agent does not say. */
  readonly tools: ReadonlyMap<string, ReadonlySet<string> | undefined>;
}

/** The fingerprint of a workflow descriptor: a short hash of its JSON. */
export function fingerprintOf(descriptor: WorkflowDescriptor): string {
  return hash(JSON.stringify(descriptor));
}

/** The identity of the workflow `orchestration` compiles to. */
export function identityOf(orchestration: Orchestration): WorkflowIdentity {
  const tools = new Map<string, ReadonlySet<string> | undefined>();
  for (const [name, agent] of orchestration.participants) tools.set(name, toolNames(agent));
  const state = orchestration.state;
  const stateVersion = state?.version ?? 1;
  const descriptor: WorkflowDescriptor = {
    ...orchestration.descriptor,
    states: Object.keys(orchestration.machine.root.states),
    tools: Object.fromEntries(
      [...tools].map(([agent, names]) => [agent, names === undefined ? null : [...names].sort()]),
    ),
    state: { version: stateVersion, shape: shapeOf(state?.schema) },
  };
  return { fingerprint: fingerprintOf(descriptor), descriptor, stateVersion, tools };
}

/**
 * The tools an agent declares (an `Agent`'s `tools` and `handoffs`), read by shape since a
 * participant may be any `ChatAgent`; undefined for one that declares none of them.
 */
function toolNames(agent: object): ReadonlySet<string> | undefined {
  const names = new Set<string>();
  let declared = false;
  for (const key of ['tools', 'handoffs']) {
    const value: unknown = Reflect.get(agent, key);
    if (!Array.isArray(value)) continue;
    declared = true;
    const list: readonly unknown[] = value;
    for (const item of list) {
      const name: unknown =
        typeof item === 'object' && item !== null ? Reflect.get(item, 'name') : undefined;
      if (typeof name === 'string') names.add(name);
    }
  }
  return declared ? names : undefined;
}

/** A hash of the state schema's JSON Schema (null without a schema). */
function shapeOf(schema: z.ZodType | undefined): string | null {
  if (schema === undefined) return null;
  try {
    return hash(JSON.stringify(z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' })));
  } catch {
    // A schema JSON Schema cannot describe (a custom check): its shape is unknown, not different.
    return 'unknown';
  }
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
