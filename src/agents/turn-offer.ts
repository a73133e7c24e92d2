import type { StateValue } from './conversation-state.js';
import type { ModelRequest } from '../models/chat-client.js';
import { mergeHandoffs } from './agent-config.js';
import type { AgentContext, HandoffGuard, HandoffGuardContext } from './chat-agent.js';
import { Handoff, type HandoffBrief } from './handoff.js';
import type { Tool } from './tool.js';

/** What a turn offers the model: the handoffs by tool name, and the request's tool schemas. */
export interface TurnOffer {
  readonly handoffs: ReadonlyMap<string, Handoff>;
  readonly names: ReadonlySet<string>;
  /** The agent's tools, then the handoffs; undefined when there are none. */
  readonly schemas: ModelRequest['tools'];
  /**
   * Every tool name offered, to itself: a call names its tool with a string of its own (parsed
   * from the model's answer), and a stored call keeps the offer's string instead.
   */
  readonly toolNames: ReadonlyMap<string, string>;
  /** Every tool name offered, in the request's order (for the message about an unknown tool). */
  readonly offered: readonly string[];
}

const NO_HANDOFFS: readonly (string | Handoff)[] = Object.freeze([]);

/**
 * The offers of one agent's turns: its own handoffs and the context's. A workflow passes the same
 * handoffs array each turn, so they are merged and checked once per array.
 */
export class TurnOffers {
  readonly #agent: string;
  readonly #tools: ReadonlyMap<string, Tool>;
  readonly #own: ReadonlyMap<string, Handoff>;
  readonly #byHandoffs = new WeakMap<readonly (string | Handoff)[], TurnOffer>();
  /** Per brief given for the agent's own handoffs (a team's `handoffBrief`): offers by handoffs. */
  readonly #byBrief = new WeakMap<
    HandoffBrief,
    WeakMap<readonly (string | Handoff)[], TurnOffer>
  >();
  #bare: TurnOffer | undefined;

  constructor(agent: string, tools: ReadonlyMap<string, Tool>, own: ReadonlyMap<string, Handoff>) {
    this.#agent = agent;
    this.#tools = tools;
    this.#own = own;
  }

  /** The offer of a turn with `ctx`'s handoff options. @throws ConfigError for a bad handoff. */
  of(ctx: Pick<AgentContext, 'offerHandoffs' | 'handoffs' | 'handoffBrief'>): TurnOffer {
    if (ctx.offerHandoffs === false) return (this.#bare ??= this.#offer(new Map()));
    const extra = ctx.handoffs ?? NO_HANDOFFS;
    const brief = ctx.handoffBrief;
    let cache = this.#byHandoffs;
    if (brief !== undefined) {
      cache = this.#byBrief.get(brief) ?? new WeakMap();
      this.#byBrief.set(brief, cache);
    }
    let offer = cache.get(extra);
    if (offer === undefined) {
      const own = brief === undefined ? this.#own : withBrief(this.#own, brief);
      offer = this.#offer(mergeHandoffs(this.#agent, this.#tools, own, extra));
      cache.set(extra, offer);
    }
    return offer;
  }

  /**
   * `offer` without the handoffs whose `when` guard does not hold on `state`: their
   * tools are not offered, and a call to one is an unknown tool's error result.
   */
  guarded(
    offer: TurnOffer,
    guards: ReadonlyMap<string, HandoffGuard> | undefined,
    state: StateValue,
    context: HandoffGuardContext,
  ): TurnOffer {
    if (guards === undefined || guards.size === 0) return offer;
    let open: Map<string, Handoff> | undefined;
    for (const [name, handoff] of offer.handoffs) {
      const guard = guards.get(handoff.target);
      if (guard === undefined || guard(state, context) === true) continue;
      open ??= new Map(offer.handoffs);
      open.delete(name);
    }
    return open === undefined ? offer : this.#offer(open);
  }

  #offer(handoffs: ReadonlyMap<string, Handoff>): TurnOffer {
    const schemas = [
      ...[...this.#tools.values()].map((t) => t.schema),
      ...[...handoffs.values()].map((h) => h.schema),
    ];
    const toolNames = new Map<string, string>();
    for (const name of [...this.#tools.keys(), ...handoffs.keys()]) toolNames.set(name, name);
    return {
      handoffs,
      names: new Set(handoffs.keys()),
      schemas: schemas.length > 0 ? schemas : undefined,
      toolNames,
      offered: [...toolNames.keys()],
    };
  }
}

/** `handoffs` with `brief` for each one that has no brief of its own. */
function withBrief(
  handoffs: ReadonlyMap<string, Handoff>,
  brief: HandoffBrief,
): ReadonlyMap<string, Handoff> {
  const out = new Map<string, Handoff>();
  for (const [name, h] of handoffs) {
    const { target, description, message } = h;
    out.set(name, h.brief ? h : new Handoff({ target, name, description, message, brief }));
  }
  return out;
}
