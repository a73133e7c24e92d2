import type { Guardrail } from '../../agents/guardrail.js';
import type { AgentResponse } from '../../agents/chat-agent.js';
import { Handoff } from '../../agents/handoff.js';
import {
  type AgentTurnOptions,
  NO_PROGRESS,
  type Orchestration,
  type ResponseRouting,
  type SpeakerChoice,
} from '../../engine/orchestration.js';
import type { SessionState } from '../../engine/state/session-state.js';
import { threadOf } from '../../engine/state/state-thread.js';
import type { StopRule } from '../../engine/state/stop-rule.js';
import { ConfigError } from '../../errors.js';
import { selectSpeakerEvent, textMessage } from '../../messages/message-factories.js';
import { messageToText } from '../../messages/message-text.js';
import { handoffTo } from '../../messages/handoff-brief.js';
import {
  compileHandoffMachine,
  type HandoffEvent,
  handoffEvent,
  replyEvent,
  type UserReplyRouting,
} from './handoff-machine.js';
import { type LazySettings, ROUTER_STATE, type Router, saysPhrase } from './handoff-router.js';
import type { HandoffTopology } from './handoff-topology.js';
import {
  AUTONOMOUS_PROMPT_KEY,
  answersInARow,
  CLASSIFIER_SOURCE,
  contextStart,
  declinedThisTurn,
  latestDecline,
  latestUserText,
} from './handoff-thread.js';

export { AUTONOMOUS_PROMPT_KEY, CLASSIFIER_SOURCE } from './handoff-thread.js';

/** The guard of a handoff the router may not take now (its target declined this user turn). */
const NOT_NOW = (): boolean => false;

/** A response that goes to the user: the session pauses with it as the question. */
const ASKS_USER: HandoffEvent = { type: 'asks_user' };
/** User input that starts at the entry (the router if any, else the coordinator). */
const MESSAGE: HandoffEvent = { type: 'message' };

/** Options of `withAutonomousMode`, resolved. */
export interface AutonomousSettings {
  readonly agents: ReadonlySet<string>;
  readonly turnLimits: Readonly<Record<string, number>>;
  readonly prompt: string;
}

/** Everything `build()` resolved, ready to compile. */
export interface HandoffSettings {
  readonly topology: HandoffTopology;
  readonly routing: UserReplyRouting;
  readonly toolCallFilter: 'handoff' | 'all' | 'none';
  readonly contextWindow: number | undefined;
  readonly maxTurns: number;
  readonly guardrails: {
    readonly input: readonly Guardrail[];
    readonly output: readonly Guardrail[];
  };
  readonly autonomous: AutonomousSettings;
  readonly stopRule: StopRule | undefined;
  /** Who routes requests in the `classifying` state: lazy routing's classifier or a resolver. */
  readonly router: Router | undefined;
  /** Set with `routing: 'lazy'`. */
  readonly lazy: LazySettings | undefined;
}

/** Compiles `HandoffBuilder` settings into the engine's orchestration. */
export function compileHandoff(settings: HandoffSettings): Orchestration {
  const { topology, autonomous, router, lazy } = settings;
  const machine = compileHandoffMachine(topology, {
    routing: settings.routing,
    autonomous: autonomous.agents,
    router,
  });
  const view: AgentTurnOptions = {
    toolCallFilter: settings.toolCallFilter,
    ...(settings.contextWindow === undefined ? {} : { contextWindow: settings.contextWindow }),
  };
  const turnOptions = new Map<string, AgentTurnOptions>();
  for (const name of topology.participants.keys()) {
    const guards = topology.guards.get(name);
    turnOptions.set(name, {
      ...view,
      handoffs: topology.handoffs.get(name) ?? [],
      ...(guards === undefined
        ? {}
        : { handoffGuards: new Map([...guards].map(([to, g]) => [to, g.test])) }),
    });
  }
  const participants = new Map(topology.participants);
  let routerOptions: AgentTurnOptions = view;
  if (router !== undefined && router.kind !== 'function') {
    participants.set(router.agent.name, router.agent);
    routerOptions =
      router.kind === 'resolver'
        ? { ...view, outputSchema: router.schema, offerHandoffs: false }
        : {
            ...view,
            handoffs: [...topology.participants.keys()]
              .filter((name) => name !== router.agent.name)
              .map((target) => routerHandoff(topology, target)),
          };
  }

  /** Who the router may route a request to: every participant but the router itself. */
  const candidates = [...topology.participants.keys()].filter((n) => n !== routerName(router));

  const routeFromRouter = (response: AgentResponse, state: SessionState): ResponseRouting => {
    const message = response.chatMessage;
    let target: string | null = null;
    if (router?.kind === 'resolver') {
      // A malformed answer (no StructuredMessage) goes to the user as it is: nothing is routed.
      if (message.type === 'StructuredMessage') target = router.resolve(message.content as never);
    } else if (message.type === 'HandoffMessage') {
      target = message.target;
    }
    if (target === null || target === 'user') return { event: ASKS_USER };
    // The router picked a specialist that already declined this user turn: ask the user rather
    // than send the request round the same loop again.
    if (lazy !== undefined && declinedThisTurn(threadOf(state), lazy.phrase).has(target)) {
      return { event: ASKS_USER };
    }
    if (!topology.participants.has(target) || target === routerName(router)) {
      const fix =
        router?.kind === 'resolver'
          ? "Make withResolver()'s resolve return one of them or null."
          : 'Make the router hand off only to one of them.';
      throw new ConfigError(
        `The router of workflow "${topology.name}" chose "${target}", which is not a participant it ` +
          `can route to (${candidates.join(', ')}). ${fix}`,
        { path: router?.kind === 'resolver' ? 'withResolver().resolve' : 'classifier' },
      );
    }
    return { event: handoffEvent(target) };
  };

  const routeResponse = (
    agent: string,
    response: AgentResponse,
    state: SessionState,
    speaking: string,
  ): ResponseRouting => {
    if (speaking === ROUTER_STATE) return routeFromRouter(response, state);
    const message = response.chatMessage;
    if (message.type === 'HandoffMessage' && message.target !== 'user') {
      const allowed = topology.targets.get(agent) ?? [];
      if (!allowed.includes(message.target)) {
        throw new ConfigError(
          `Agent "${agent}" handed off to "${message.target}", which workflow "${topology.name}" ` +
            `does not allow. Allowed targets of "${agent}": ${allowed.map((t) => `"${t}"`).join(', ') || 'none'}. ` +
            'Add the edge with addHandoff() or fix the agent.',
          { path: 'addHandoff' },
        );
      }
      return { event: handoffEvent(message.target) };
    }
    if (
      lazy !== undefined &&
      message.type !== 'HandoffMessage' &&
      saysPhrase(lazy.phrase, messageToText(message))
    ) {
      // At most participants - 1 reroutes per user turn, and only to someone who has not declined
      // in it; otherwise this answer is the question to the user (a normal pause).
      const declined = declinedThisTurn(threadOf(state), lazy.phrase).add(agent);
      const left = candidates.filter((name) => !declined.has(name));
      if (left.length === 0 || declined.size > topology.participants.size - 1) {
        return { event: ASKS_USER };
      }
      return { event: { type: 'reroute' } };
    }
    if (message.type !== 'HandoffMessage' && autonomous.agents.has(agent)) {
      const limit = autonomous.turnLimits[agent] ?? 10;
      if (answersInARow(state, agent) + 1 < limit) {
        const prompt = textMessage({
          source: 'user',
          content: autonomous.prompt,
          metadata: { [AUTONOMOUS_PROMPT_KEY]: true },
        });
        return { event: { type: 'continue' }, followUp: [prompt] };
      }
    }
    return { event: ASKS_USER };
  };

  const routeUserInput = (state: SessionState): HandoffEvent => {
    if (settings.routing === 'coordinator') return MESSAGE;
    const replyTo = state.pendingRequest?.agent ?? state.lastSpeaker ?? undefined;
    // Lazy routing classifies the first request; the other modes start at the coordinator.
    // Nobody to reply to yet: the entry (the router if any, else the coordinator) takes it.
    if (replyTo === undefined || !topology.participants.has(replyTo)) return MESSAGE;
    return replyEvent(replyTo);
  };

  const selectSpeaker =
    router?.kind === 'function'
      ? async (state: SessionState): Promise<SpeakerChoice> => {
          const declined =
            lazy === undefined ? new Set<string>() : declinedThisTurn(threadOf(state), lazy.phrase);
          const infos = [...topology.participants.values()]
            .filter((a) => !declined.has(a.name))
            .map((a) => ({ name: a.name, description: a.description }));
          const agent = await router.classify(latestUserText(threadOf(state)), infos);
          if (declined.has(agent)) {
            // It picked someone who declined this user turn (it was not offered them): rather
            // than send the request round the same loop, the latest decline is asked of the user.
            return { askUser: latestDecline(threadOf(state), lazy?.phrase ?? '') };
          }
          if (!infos.some((i) => i.name === agent)) {
            throw new ConfigError(
              `The classifier of workflow "${topology.name}" returned "${String(agent)}", which is not a ` +
                `participant (${infos.map((i) => i.name).join(', ')}). Make the classifier return ` +
                'one of the names it is given.',
              { path: 'withUserReplyRouting("lazy").classifier' },
            );
          }
          return {
            agent,
            event: selectSpeakerEvent({ source: CLASSIFIER_SOURCE, content: [agent] }),
          };
        }
      : undefined;

  return {
    name: topology.name,
    machine,
    participants,
    maxTurns: settings.maxTurns,
    guardrails: settings.guardrails,
    stopRule: settings.stopRule,
    descriptor: describe(settings),
    progressSchema: NO_PROGRESS,
    turnOptions: (agent, speaking, state) => {
      if (speaking === ROUTER_STATE) {
        if (lazy === undefined || routerOptions.handoffs === undefined) return routerOptions;
        const declined = declinedThisTurn(threadOf(state), lazy.phrase);
        if (declined.size === 0) return routerOptions;
        return {
          ...routerOptions,
          handoffs: routerOptions.handoffs.filter((h) => !declined.has(h.target)),
          // Withheld, not unknown: a call to one is an error result without another try.
          handoffGuards: new Map([...declined].map((t) => [t, NOT_NOW])),
        };
      }
      let options = turnOptions.get(agent) ?? {};
      const briefSources = topology.briefHistory.get(agent);
      if (briefSources !== undefined) {
        // The handoff that gave the agent the floor decides how much of the thread it sees.
        const from = handoffTo(threadOf(state), agent)?.from;
        if (from !== undefined && briefSources.has(from))
          options = { ...options, history: 'brief' };
      }
      if (lazy?.contextTurns === undefined) return options;
      return {
        ...options,
        conversationFrom: contextStart(threadOf(state), agent, lazy.contextTurns),
      };
    },
    routeResponse,
    routeUserInput,
    ...(selectSpeaker === undefined ? {} : { selectSpeaker }),
  };
}

function routerName(router: Router | undefined): string | undefined {
  return router === undefined || router.kind === 'function' ? undefined : router.agent.name;
}

/**
 * The handoff the router is offered to `target`: the coordinator's (with its brief), else one
 * described by the target.
 */
function routerHandoff(topology: HandoffTopology, target: string): Handoff {
  const own = topology.handoffs.get(topology.coordinator)?.find((h) => h.target === target);
  if (own !== undefined) return own;
  const description = topology.participants.get(target)?.description;
  return new Handoff(
    description ? { target, description: `Handoff to ${target}: ${description}` } : { target },
  );
}

/** Participants, topology and routing: a stored session must match them to be resumed. */
function describe(settings: HandoffSettings): Record<string, unknown> {
  const { topology } = settings;
  return {
    kind: 'handoff',
    participants: [...topology.participants.keys()],
    coordinator: topology.coordinator,
    handoffs: Object.fromEntries(
      [...topology.targets].map(([agent, targets]) => [agent, [...targets]]),
    ),
    routing: settings.routing,
    autonomous: [...settings.autonomous.agents],
    router: settings.router === undefined ? null : settings.router.kind,
  };
}
