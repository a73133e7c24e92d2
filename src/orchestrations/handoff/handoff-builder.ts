import { replaceGuardrails, type GuardrailSet } from '../../agents/guardrail.js';
import type { ZodType } from 'zod';

import type { ChatAgent } from '../../agents/chat-agent.js';
import type { CheckpointStore } from '../../checkpoint/checkpoint-store.js';
import type { CheckpointOptions } from '../../engine/log/checkpoint-link.js';
import { type Checkpointing, toCheckpointing } from '../../engine/log/checkpointing.js';
import {
  checkStopCondition,
  type ThreadPredicate,
  toStopRule,
} from '../../engine/state/stop-rule.js';
import { ConfigError } from '../../errors.js';
import type { TerminationCondition } from '../../termination/termination-condition.js';
import type { UserReplyRouting } from './handoff-machine.js';
import { compileHandoff } from './handoff-orchestration.js';
import { resolveRouter } from './builder-router.js';
import {
  addEdges,
  type AddHandoffOptions,
  type BriefSettings,
  checkBriefOptions,
  type HandoffEdge,
  resolveTopology,
} from './handoff-topology.js';
import { checkBrief, type HandoffBrief } from '../../agents/handoff.js';
import { DEFAULT_HANDOFF_BRIEF } from './default-brief.js';
import type { StateOption } from '../../agents/conversation-state.js';
import { resolveStateOption } from '../state-option.js';
import { HandoffWorkflow } from './handoff-workflow.js';
import {
  positiveInteger,
  type CoordinatorOptions,
  type AutonomousModeOptions,
  type HandoffBuilderOptions,
  type LazyRoutingOptions,
  type ResolverOptions,
} from './handoff-options.js';

const DEFAULT_AUTONOMOUS_PROMPT = 'User did not respond. Continue assisting autonomously.';
const DEFAULT_HANDOFF_PHRASE = 'This is outside my area';

export type { AddHandoffOptions } from './handoff-topology.js';
export type {
  CoordinatorOptions,
  AutonomousModeOptions,
  HandoffBuilderOptions,
  LazyRoutingOptions,
  ResolverOptions,
} from './handoff-options.js';

const nameOf = (agent: ChatAgent | string): string =>
  typeof agent === 'string' ? agent : agent?.name;

/**
 * Builds the coordinator → specialist → user workflow: the coordinator routes each conversation
 * to specialists through generated `handoff_to_<agent>` tools, specialists escalate along the
 * edges you add, and an agent that answers without handing off asks the user.
 *
 * @example
 * const workflow = new HandoffBuilder({ name: 'support', participants: [triage, billing, tech] })
 *   .coordinator(triage)
 *   .addHandoff(billing, [tech])
 *   .withTerminationCondition(new MaxMessageTermination(20))
 *   .build();
 * const result = await workflow.run('My invoice is wrong');
 */
export class HandoffBuilder {
  readonly #name: string;
  readonly #participants: readonly ChatAgent[];
  #coordinator: string | undefined;
  readonly #edges = new Map<string, Map<string, HandoffEdge>>();
  #stop: TerminationCondition | ThreadPredicate | undefined;
  #routing: UserReplyRouting = 'coordinator';
  #toolCallFilter: 'handoff' | 'all' | 'none' = 'handoff';
  #contextWindow: number | undefined;
  #maxTurns = 50;
  #guardrails: Required<GuardrailSet> = { input: [], output: [] };
  #autonomous: AutonomousModeOptions | undefined;
  #checkpointing: Checkpointing | undefined;
  #lazy:
    | {
        phrase: string | RegExp;
        classifier: LazyRoutingOptions['classifier'];
        contextTurns: number | undefined;
      }
    | undefined;
  #resolver: ResolverOptions<ZodType> | undefined;
  readonly #state: StateOption | undefined;
  readonly #brief: HandoffBrief | undefined;
  #lead: BriefSettings['coordinator'] = {};

  constructor(options: HandoffBuilderOptions) {
    const participants = options?.participants;
    if (!Array.isArray(participants)) {
      throw new ConfigError('HandoffBuilder needs `participants`, an array of agents.', {
        path: 'participants',
      });
    }
    participants.forEach((agent, i) => {
      if (agent === null || typeof agent !== 'object' || typeof agent.respond !== 'function') {
        throw new ConfigError(
          `HandoffBuilder: participants[${i}] is not an agent (an object with name and respond()).`,
          { path: `participants[${i}]` },
        );
      }
    });
    this.#name = options.name ?? 'handoff';
    this.#participants = [...participants];
    this.#state = options.state;
    this.#brief =
      options.handoffBrief === false
        ? undefined
        : (checkBrief('HandoffBuilder: handoffBrief', options.handoffBrief) ??
          DEFAULT_HANDOFF_BRIEF);
  }

  /**
   * The agent that receives new conversations and can hand off to every other participant.
   * Required. `options.brief` is what its handoffs carry (default: the workflow's `handoffBrief`);
   * `options.history: 'brief'` shows its targets the user's messages and the brief only.
   */
  coordinator(agent: ChatAgent | string, options: CoordinatorOptions = {}): this {
    this.#coordinator = nameOf(agent);
    const checked = checkBriefOptions('coordinator()', options ?? {});
    this.#lead = {
      ...(checked.brief === undefined ? {} : { brief: checked.brief }),
      ...(checked.history === undefined ? {} : { history: checked.history }),
    };
    return this;
  }

  /**
   * Lets `source` hand off to each of `targets`; repeated calls merge. `brief` is the zod object
   * the handoff tool takes (checked; recorded on the `HandoffMessage`; the target's
   * `ctx.handoff.brief`), `history: 'brief'` shows the target the user's messages and the brief
   * instead of the other agents' turns.
   * @example builder.addHandoff(triage, [billing], { brief: z.object({ reason: z.string(), invoiceId: z.string() }) })
   */
  addHandoff(
    source: ChatAgent | string,
    targets: readonly (ChatAgent | string)[],
    options: AddHandoffOptions = {},
  ): this {
    addEdges(this.#edges, nameOf(source), targets.map(nameOf), options);
    return this;
  }

  /**
   * When a session stops: a condition fed each delta (its state kept per session across pauses),
   * or a predicate over the whole thread (stop reason `Functional termination condition met`).
   */
  withTerminationCondition(condition: TerminationCondition | ThreadPredicate): this {
    this.#stop = checkStopCondition(condition);
    return this;
  }

  /**
   * Commits every step of every session to `store` before the next begins, so any process with
   * the same workflow can resume any session (`workflow.session(id)`), and leases each run so two
   * processes never advance one session at once. At most `options.sessionCacheSize` idle sessions
   * (default 1,000) stay in memory; the others are reloaded from the store when used.
   */
  withCheckpointing(store: CheckpointStore, options: CheckpointOptions = {}): this {
    this.#checkpointing = toCheckpointing('withCheckpointing()', store, options);
    return this;
  }

  /** Who answers a user reply: the coordinator (default) or the agent that asked. */
  withUserReplyRouting(mode: UserReplyRouting, options: LazyRoutingOptions = {}): this {
    if (mode !== 'coordinator' && mode !== 'last_agent' && mode !== 'lazy') {
      throw new ConfigError(
        `withUserReplyRouting(): unknown mode ${JSON.stringify(mode)}. Use "coordinator", "last_agent" or "lazy".`,
        { path: 'userReplyRouting' },
      );
    }
    if (mode === 'lazy') {
      const phrase = options.handoffPhrase ?? DEFAULT_HANDOFF_PHRASE;
      if (!(phrase instanceof RegExp) && (typeof phrase !== 'string' || phrase === '')) {
        throw new ConfigError(
          'withUserReplyRouting("lazy"): handoffPhrase must be a non-empty string or a RegExp.',
          {
            path: 'handoffPhrase',
          },
        );
      }
      const { classifier, contextTurns } = options;
      if (
        classifier !== undefined &&
        typeof classifier !== 'function' &&
        (classifier === null ||
          typeof classifier !== 'object' ||
          typeof classifier.respond !== 'function')
      ) {
        throw new ConfigError(
          'withUserReplyRouting("lazy"): classifier must be an agent or a function (text, participants) => name.',
          { path: 'classifier' },
        );
      }
      if (contextTurns !== undefined)
        positiveInteger('withUserReplyRouting("lazy"): contextTurns', contextTurns);
      this.#lazy = { phrase, classifier, contextTurns };
    } else {
      this.#lazy = undefined;
    }
    this.#routing = mode;
    return this;
  }

  /**
   * Routes with structured output instead of handoff tools (for models without tool calling, or
   * routing rules kept in code): `agent` (the coordinator by default) answers in `schema`, with no
   * handoff tools, and `resolve(answer)` names the participant to take over, or returns `null` to
   * let the agent's answer go to the user.
   */
  withResolver<S extends ZodType>(options: ResolverOptions<S>): this {
    if (options === null || typeof options !== 'object' || typeof options.resolve !== 'function') {
      throw new ConfigError(
        'withResolver() needs { schema, resolve(output) => name | null, agent? }.',
        {
          path: 'resolver',
        },
      );
    }
    if (
      options.schema === null ||
      typeof options.schema !== 'object' ||
      typeof options.schema.safeParse !== 'function'
    ) {
      throw new ConfigError(
        'withResolver(): schema must be a zod schema, e.g. z.object({ route: z.string() }).',
        {
          path: 'resolver.schema',
        },
      );
    }
    this.#resolver = options as unknown as ResolverOptions<ZodType>;
    return this;
  }

  /** Which tool calls the next agent sees: all but handoffs (default), none, or all. */
  withToolCallFilter(filter: 'handoff' | 'all' | 'none'): this {
    if (filter !== 'handoff' && filter !== 'all' && filter !== 'none') {
      throw new ConfigError(
        `withToolCallFilter(): unknown filter ${JSON.stringify(filter)}. Use "handoff", "all" or "none".`,
        { path: 'toolCallFilter' },
      );
    }
    this.#toolCallFilter = filter;
    return this;
  }

  /** Lets agents keep going without the user until they hand off or reach their turn limit. */
  withAutonomousMode(options: AutonomousModeOptions = {}): this {
    for (const [agent, limit] of Object.entries(options.turnLimits ?? {})) {
      positiveInteger(`withAutonomousMode(): turnLimits.${agent}`, limit);
    }
    this.#autonomous = options;
    return this;
  }

  /** Each model request carries at most the last `n` messages of the agent's view. */
  withContextWindow(n: number): this {
    this.#contextWindow = positiveInteger('withContextWindow()', n);
    return this;
  }

  /** Agent turns per run. @default 50 */
  withMaxTurns(n: number): this {
    this.#maxTurns = positiveInteger('withMaxTurns()', n);
    return this;
  }

  /**
   * Guardrails: `input` checks each run's task before any agent sees it, `output`
   * each agent's final answer before it is recorded. Repeated calls replace the lists given.
   * @example builder.withGuardrails({ input: [noCards], output: [noCards] })
   */
  withGuardrails(guardrails: GuardrailSet): this {
    this.#guardrails = replaceGuardrails(this.#guardrails, guardrails);
    return this;
  }

  /**
   * Checks the configuration and compiles it into a runnable workflow.
   * @throws ConfigError naming the agent when the configuration cannot work.
   */
  build(): HandoffWorkflow {
    const state = resolveStateOption(`HandoffBuilder "${this.#name}"`, this.#state);
    const topology = resolveTopology({
      name: this.#name,
      participants: this.#participants,
      coordinator: this.#coordinator,
      edges: this.#edges,
      briefs: { default: this.#brief, coordinator: this.#lead },
    });
    const autonomousAgents = new Set<string>();
    if (this.#autonomous !== undefined) {
      const chosen = this.#autonomous.agents?.map(nameOf) ?? [...topology.participants.keys()];
      for (const agent of [...chosen, ...Object.keys(this.#autonomous.turnLimits ?? {})]) {
        if (!topology.participants.has(agent)) {
          throw new ConfigError(
            `withAutonomousMode(): "${agent}" is not a participant of workflow "${this.#name}". Fix the name.`,
            { path: 'autonomous.agents' },
          );
        }
      }
      for (const agent of chosen) autonomousAgents.add(agent);
    }
    const orchestration = compileHandoff({
      topology,
      routing: this.#routing,
      toolCallFilter: this.#toolCallFilter,
      contextWindow: this.#contextWindow,
      maxTurns: this.#maxTurns,
      guardrails: this.#guardrails,
      autonomous: {
        agents: autonomousAgents,
        turnLimits: this.#autonomous?.turnLimits ?? {},
        prompt: this.#autonomous?.prompt ?? DEFAULT_AUTONOMOUS_PROMPT,
      },
      stopRule: this.#stop === undefined ? undefined : toStopRule(this.#stop),
      router: resolveRouter({
        name: this.#name,
        topology,
        resolver: this.#resolver,
        lazy: this.#routing === 'lazy' ? this.#lazy?.classifier : undefined,
        lazyOn: this.#routing === 'lazy' && this.#lazy !== undefined,
      }),
      lazy:
        this.#lazy === undefined
          ? undefined
          : { phrase: this.#lazy.phrase, contextTurns: this.#lazy.contextTurns },
    });
    return new HandoffWorkflow({ ...orchestration, ...state }, topology, this.#checkpointing);
  }
}
