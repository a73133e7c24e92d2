import type { ChatAgent, HandoffGuard } from '../../agents/chat-agent.js';
import { Handoff } from '../../agents/handoff.js';
import { ConfigError } from '../../errors.js';
import { fieldOf } from '../../unknown-value.js';
import { RESERVED_STATES } from '../flat-machine.js';
import { checkOwnHandoffs, ownHandoffs } from '../own-handoffs.js';
import { checkParticipantName } from '../participant-name.js';

/** A specialist → specialist edge as `addHandoff` recorded it. */
export interface HandoffEdge {
  readonly description: string | undefined;
  /** The `when` guard (API.md §18): the handoff is offered only while it holds. */
  readonly when?: NamedGuard | undefined;
}

/** A `when` guard and the name the compiled machine knows it by. */
export interface NamedGuard {
  readonly name: string;
  readonly test: HandoffGuard;
}

/**
 * Records `addHandoff(from, targets, options)` in `edges` (repeated calls merge). A `when` guard
 * is named after its function, or `when_<from>_<to>` when it has no name of its own.
 * @throws ConfigError when `when` is not a function.
 */
export function addEdges(
  edges: Map<string, Map<string, HandoffEdge>>,
  from: string,
  targets: readonly string[],
  options: { description?: string; when?: HandoffGuard },
): void {
  const when = options.when;
  if (when !== undefined && typeof when !== 'function') {
    fail(
      `addHandoff("${from}", ...): when must be a function (state) => boolean, got ${JSON.stringify(when)}.`,
      'addHandoff.when',
    );
  }
  let own = edges.get(from);
  if (own === undefined) {
    own = new Map();
    edges.set(from, own);
  }
  for (const to of targets) {
    const before = own.get(to);
    const named = when?.name;
    const guard =
      when === undefined
        ? before?.when
        : { name: named && named !== 'when' ? named : `when_${from}_${to}`, test: when };
    own.set(to, { description: options.description ?? before?.description, when: guard });
  }
}

/** What `HandoffBuilder` collected, checked and resolved into per-agent handoff tools. */
export interface HandoffTopology {
  readonly name: string;
  readonly participants: ReadonlyMap<string, ChatAgent>;
  readonly coordinator: string;
  /** Per agent: the targets it may hand off to, in a stable order. */
  readonly targets: ReadonlyMap<string, readonly string[]>;
  /** Per agent: the handoff tools this workflow adds (those the agent lacks of its own). */
  readonly handoffs: ReadonlyMap<string, readonly Handoff[]>;
  /** Per agent: the `when` guards of its handoffs, by target. */
  readonly guards: ReadonlyMap<string, ReadonlyMap<string, NamedGuard>>;
}

/** The agent's own tools and handoffs, for agents that expose them (as `Agent` does). */
function ownTools(agent: ChatAgent): { tools: string[]; handoffs: Handoff[] } {
  const given = fieldOf(agent, 'tools');
  const tools = Array.isArray(given) ? given.map((t: unknown) => String(fieldOf(t, 'name'))) : [];
  return { tools, handoffs: ownHandoffs(agent) };
}

/** Where a handoff may lead besides a participant: the user, who is asked. */
const OUTSIDE: ReadonlySet<string> = new Set(['user']);

function fail(message: string, path: string): never {
  throw new ConfigError(message, { path });
}

/** Checks the builder's inputs and resolves every agent's targets and generated handoff tools. */
export function resolveTopology(input: {
  name: string;
  participants: readonly ChatAgent[];
  coordinator: string | undefined;
  edges: ReadonlyMap<string, ReadonlyMap<string, HandoffEdge>>;
}): HandoffTopology {
  const { name } = input;
  if (input.participants.length === 0) {
    fail(`HandoffBuilder "${name}" has no participants. Pass at least one agent.`, 'participants');
  }
  const participants = new Map<string, ChatAgent>();
  for (const [i, agent] of input.participants.entries()) {
    checkParticipantName(`HandoffBuilder "${name}"`, agent.name, `participants[${i}].name`);
    if (participants.has(agent.name)) {
      fail(
        `HandoffBuilder "${name}": two participants are named "${agent.name}". Give every agent a unique name.`,
        'participants',
      );
    }
    if (RESERVED_STATES.has(agent.name)) {
      fail(
        `HandoffBuilder "${name}": a participant cannot be named "${agent.name}", a state the workflow uses itself. Rename the agent.`,
        'participants',
      );
    }
    participants.set(agent.name, agent);
  }
  const coordinator = input.coordinator;
  if (coordinator === undefined) {
    fail(
      `HandoffBuilder "${name}" has no coordinator. Call .coordinator(agent) before build().`,
      'coordinator',
    );
  }
  if (!participants.has(coordinator)) {
    fail(
      `HandoffBuilder "${name}": coordinator "${coordinator}" is not a participant. Add it to participants or fix the name.`,
      'coordinator',
    );
  }

  checkOwnHandoffs(`HandoffBuilder "${name}"`, input.participants, OUTSIDE);

  const described = new Map<string, Map<string, string | undefined>>();
  const allow = (from: string, to: string, description: string | undefined) => {
    let map = described.get(from);
    if (map === undefined) {
      map = new Map();
      described.set(from, map);
    }
    if (!map.has(to) || description !== undefined) map.set(to, description);
  };
  for (const [target, agent] of participants) {
    if (target === coordinator) continue;
    allow(
      coordinator,
      target,
      agent.description ? `Handoff to ${target}: ${agent.description}` : undefined,
    );
  }
  const guards = new Map<string, Map<string, NamedGuard>>();
  const byName = new Map<string, HandoffGuard>();
  const guard = (from: string, to: string, when: NamedGuard) => {
    const known = byName.get(when.name);
    if (known !== undefined && known !== when.test) {
      fail(
        `addHandoff("${from}", ["${to}"]): another handoff has a different when guard named "${when.name}". ` +
          'Give each guard function its own name.',
        'addHandoff.when',
      );
    }
    byName.set(when.name, when.test);
    let own = guards.get(from);
    if (own === undefined) guards.set(from, (own = new Map()));
    own.set(to, when);
  };
  for (const [source, targets] of input.edges) {
    if (!participants.has(source)) {
      fail(
        `addHandoff("${source}", ...): "${source}" is not a participant of workflow "${name}". Add it to participants or fix the name.`,
        'addHandoff.source',
      );
    }
    for (const [target, edge] of targets) {
      if (!participants.has(target)) {
        fail(
          `addHandoff("${source}", ["${target}"]): "${target}" is not a participant of workflow "${name}". Add it to participants or fix the name.`,
          'addHandoff.targets',
        );
      }
      if (target === source) {
        fail(
          `addHandoff("${source}", ["${target}"]): an agent cannot hand off to itself. Remove "${target}" from its targets.`,
          'addHandoff.targets',
        );
      }
      allow(source, target, edge.description);
      if (edge.when !== undefined) guard(source, target, edge.when);
    }
  }

  const targets = new Map<string, string[]>();
  const handoffs = new Map<string, Handoff[]>();
  for (const [agentName, agent] of participants) {
    const own = ownTools(agent);
    const list: string[] = [];
    for (const h of own.handoffs) {
      if (participants.has(h.target) && h.target !== agentName) list.push(h.target);
    }
    const generated: Handoff[] = [];
    for (const [target, description] of described.get(agentName) ?? []) {
      if (own.handoffs.some((h) => h.target === target)) continue;
      const handoff = new Handoff(description === undefined ? { target } : { target, description });
      if (own.tools.includes(handoff.name) || own.handoffs.some((h) => h.name === handoff.name)) {
        fail(
          `HandoffBuilder "${name}": agent "${agentName}" already has a tool named "${handoff.name}", the name of its generated handoff to "${target}". Rename that tool.`,
          `participants.${agentName}.tools`,
        );
      }
      generated.push(handoff);
      list.push(target);
    }
    targets.set(agentName, [...new Set(list)]);
    handoffs.set(agentName, generated);
  }
  return { name, participants, coordinator, targets, handoffs, guards };
}
