import type { ChatAgent, HandoffGuard } from '../../agents/chat-agent.js';
import { checkBrief, Handoff, type HandoffBrief } from '../../agents/handoff.js';
import type { HistoryView } from '../../messages/model-view.js';
import { ConfigError } from '../../errors.js';
import { fieldOf } from '../../unknown-value.js';
import { RESERVED_STATES } from '../flat-machine.js';
import { checkOwnHandoffs, ownHandoffs } from '../own-handoffs.js';
import { checkParticipantName } from '../participant-name.js';

/** A specialist → specialist edge as `addHandoff` recorded it. */
export interface HandoffEdge {
  readonly description: string | undefined;
  /** The `when` guard: the handoff is offered only while it holds. */
  readonly when?: NamedGuard | undefined;
  /** The edge's brief; `false`: none; undefined: the workflow's. */
  readonly brief?: HandoffBrief | false | undefined;
  /** What the target sees of the thread after this handoff. @default 'full' */
  readonly history?: HistoryView | undefined;
}

/** Options of `addHandoff()`. */
export interface AddHandoffOptions {
  description?: string;
  /** Offered only while it holds. */
  when?: HandoffGuard;
  /** What the source tells the target, as the tool's parameters. @default the workflow's brief */
  brief?: HandoffBrief | false;
  /** `'brief'`: the target sees the user's messages and the brief, not other agents' turns. */
  history?: HistoryView;
}

const isHistory = (value: unknown): value is HistoryView => value === 'full' || value === 'brief';

/** `options`' brief and history, checked. @throws ConfigError naming the method. */
export function checkBriefOptions(
  where: string,
  options: { brief?: unknown; history?: unknown },
): { brief: HandoffBrief | false | undefined; history: HistoryView | undefined } {
  const brief = options.brief === false ? false : checkBrief(where, options.brief);
  const { history } = options;
  if (history === undefined || isHistory(history)) return { brief, history };
  fail(`${where}: history must be "full" or "brief", got ${JSON.stringify(history)}.`, 'history');
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
  options: AddHandoffOptions,
): void {
  const when = options.when;
  const { brief, history } = checkBriefOptions(`addHandoff("${from}", ...)`, options);
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
    own.set(to, {
      description: options.description ?? before?.description,
      when: guard,
      brief: brief ?? before?.brief,
      history: history ?? before?.history,
    });
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
  /** Per target: the sources whose handoffs to it show it the `'brief'` history. */
  readonly briefHistory: ReadonlyMap<string, ReadonlySet<string>>;
}

/** The briefs of a workflow: its default, and the coordinator's (for its handoffs). */
export interface BriefSettings {
  readonly default: HandoffBrief | undefined;
  readonly coordinator: { readonly brief?: HandoffBrief | false; readonly history?: HistoryView };
}

/** What a generated handoff tool is made from. */
interface EdgeTool {
  readonly description: string | undefined;
  readonly brief?: HandoffBrief | false | undefined;
  readonly history?: HistoryView | undefined;
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
  briefs: BriefSettings;
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

  const described = new Map<string, Map<string, EdgeTool>>();
  const allow = (from: string, to: string, tool: EdgeTool) => {
    let map = described.get(from);
    if (map === undefined) {
      map = new Map();
      described.set(from, map);
    }
    const before = map.get(to);
    map.set(to, {
      description: tool.description ?? before?.description,
      brief: tool.brief ?? before?.brief,
      history: tool.history ?? before?.history,
    });
  };
  const { coordinator: lead } = input.briefs;
  for (const [target, agent] of participants) {
    if (target === coordinator) continue;
    allow(coordinator, target, {
      description: agent.description ? `Handoff to ${target}: ${agent.description}` : undefined,
      brief: lead.brief,
      history: lead.history,
    });
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
      allow(source, target, edge);
      if (edge.when !== undefined) guard(source, target, edge.when);
    }
  }

  const targets = new Map<string, string[]>();
  const handoffs = new Map<string, Handoff[]>();
  const briefHistory = new Map<string, Set<string>>();
  for (const [agentName, agent] of participants) {
    const own = ownTools(agent);
    const list: string[] = [];
    for (const h of own.handoffs) {
      if (participants.has(h.target) && h.target !== agentName) list.push(h.target);
    }
    const generated: Handoff[] = [];
    for (const [target, edge] of described.get(agentName) ?? []) {
      if (edge.history === 'brief') {
        const sources = briefHistory.get(target) ?? new Set();
        briefHistory.set(target, sources.add(agentName));
      }
      if (own.handoffs.some((h) => h.target === target)) continue;
      const { description } = edge;
      const brief = edge.brief === false ? undefined : (edge.brief ?? input.briefs.default);
      const handoff = new Handoff({
        target,
        ...(description === undefined ? {} : { description }),
        brief,
      });
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
  return { name, participants, coordinator, targets, handoffs, guards, briefHistory };
}
