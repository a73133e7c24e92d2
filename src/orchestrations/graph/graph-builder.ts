import type { StateOption } from '../../agents/conversation-state.js';
import { resolveStateOption } from '../state-option.js';
import type { ChatAgent } from '../../agents/chat-agent.js';
import { replaceGuardrails, type GuardrailSet } from '../../agents/guardrail.js';
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
import { compileGraph } from './graph-orchestration.js';
import { GraphWorkflow } from './graph-workflow.js';
import {
  type Activation,
  type EdgeCondition,
  type GraphEdge,
  resolveGraph,
} from './graph-topology.js';

/** Options of `new GraphBuilder()`. */
export interface GraphBuilderOptions {
  /** Names the workflow in errors, the machine id and the graph. @default "graph" */
  name?: string;
  /**
   * Input and output guardrails (teams and graphs take the option `guardrails`); the same
   * as calling `withGuardrails()`. @default none
   */
  guardrails?: GuardrailSet;
  /**
   * The conversation state: its zod schema and the value a new session starts with,
   * checked by `build()`. @default none: the state is `{}` and any JSON object is accepted
   */
  state?: StateOption;
}

/** Options of `addNode()`. */
export interface GraphNodeOptions {
  /** `all`: waits for an edge from each of its sources; `any`: runs on the first. @default "all" */
  activation?: Activation;
}

/** Options of `addEdge()`. */
export interface GraphEdgeOptions {
  /** Text the source's answer contains, or a predicate over the answer. @default always */
  when?: EdgeCondition;
}

/** A node in `addEdge()` and `setEntryPoint()`: the agent, or its name. */
export type GraphNodeRef = ChatAgent | string;

function nameOf(ref: GraphNodeRef, method: string): string {
  if (typeof ref === 'string' && ref.length > 0) return ref;
  if (ref !== null && typeof ref === 'object' && typeof ref.name === 'string') return ref.name;
  throw new ConfigError(
    `${method}: expected an agent or a node name, got ${JSON.stringify(ref)}.`,
    {
      path: 'edges',
    },
  );
}

// Array.isArray does not narrow a readonly array type out of a union.
function isList(refs: GraphNodeRef | readonly GraphNodeRef[]): refs is readonly GraphNodeRef[] {
  return Array.isArray(refs);
}

function namesOf(refs: GraphNodeRef | readonly GraphNodeRef[], method: string): string[] {
  const list = isList(refs) ? refs : [refs];
  if (list.length === 0)
    throw new ConfigError(`${method}: the node list is empty.`, { path: 'edges' });
  return list.map((r) => nameOf(r, method));
}

/**
 * Builds a graph workflow: nodes are agents, edges (optionally conditional) say who
 * runs after whom; nodes due together run concurrently and their answers are one step.
 *
 * @example
 * const flow = new GraphBuilder({ name: 'review' })
 *   .addNode(writer).addNode(critic).addNode(editor)
 *   .addEdge(writer, critic)
 *   .addEdge(critic, writer, { when: 'REVISE' })
 *   .addEdge(critic, editor, { when: 'APPROVE' })
 *   .build();
 */
export class GraphBuilder {
  readonly #name: string;
  readonly #nodes: { agent: ChatAgent; activation: Activation }[] = [];
  readonly #edges: GraphEdge[] = [];
  #entryPoints: string[] | undefined;
  #stop: TerminationCondition | ThreadPredicate | undefined;
  #maxTurns = 50;
  #guardrails: Required<GuardrailSet> = { input: [], output: [] };
  #checkpointing: Checkpointing | undefined;
  readonly #state: StateOption | undefined;

  constructor(options: GraphBuilderOptions = {}) {
    this.#state = options?.state;
    const name = options?.name ?? 'graph';
    if (typeof name !== 'string' || name.length === 0) {
      throw new ConfigError(
        `GraphBuilder: name must be a non-empty string, got ${JSON.stringify(name)}.`,
        {
          path: 'name',
        },
      );
    }
    this.#name = name;
    if (options.guardrails !== undefined) {
      this.#guardrails = replaceGuardrails(this.#guardrails, options.guardrails);
    }
  }

  /** Adds an agent as a node. */
  addNode(agent: ChatAgent, options: GraphNodeOptions = {}): this {
    if (agent === null || typeof agent !== 'object' || typeof agent.respond !== 'function') {
      throw new ConfigError('addNode() needs an agent (an object with name and respond()).', {
        path: 'nodes',
      });
    }
    const activation = options.activation ?? 'all';
    if (activation !== 'all' && activation !== 'any') {
      throw new ConfigError(
        `addNode("${agent.name}"): activation must be "all" or "any", got ${JSON.stringify(activation)}.`,
        { path: 'activation' },
      );
    }
    this.#nodes.push({ agent, activation });
    return this;
  }

  /** Adds an edge from each source to each target (fan-out, fan-in), optionally conditional. */
  addEdge(
    sources: GraphNodeRef | readonly GraphNodeRef[],
    targets: GraphNodeRef | readonly GraphNodeRef[],
    options: GraphEdgeOptions = {},
  ): this {
    const when = options.when;
    if (
      when !== undefined &&
      !(typeof when === 'string' && when.length > 0) &&
      typeof when !== 'function'
    ) {
      throw new ConfigError(
        `addEdge(): when must be a non-empty string or a function (message) => boolean, got ${JSON.stringify(when)}.`,
        { path: 'when' },
      );
    }
    for (const source of namesOf(sources, 'addEdge()')) {
      for (const target of namesOf(targets, 'addEdge()')) {
        this.#edges.push(when === undefined ? { source, target } : { source, target, when });
      }
    }
    return this;
  }

  /** The nodes a run starts at. @default the nodes with no incoming edge */
  setEntryPoint(nodes: GraphNodeRef | readonly GraphNodeRef[]): this {
    this.#entryPoints = namesOf(nodes, 'setEntryPoint()');
    return this;
  }

  /** When a session stops: a condition fed each step's messages, or a predicate over the thread. */
  withTerminationCondition(condition: TerminationCondition | ThreadPredicate): this {
    this.#stop = checkStopCondition(condition);
    return this;
  }

  /** Commits every step of every session to `store` (see `HandoffBuilder.withCheckpointing`). */
  withCheckpointing(store: CheckpointStore, options: CheckpointOptions = {}): this {
    this.#checkpointing = toCheckpointing('withCheckpointing()', store, options);
    return this;
  }

  /** Node answers per run. @default 50 */
  withMaxTurns(n: number): this {
    if (!Number.isInteger(n) || n < 1) {
      throw new ConfigError(`withMaxTurns() needs a positive integer, got ${JSON.stringify(n)}.`, {
        path: 'maxTurns',
      });
    }
    this.#maxTurns = n;
    return this;
  }

  /** Input and output guardrails; repeated calls replace the lists given. */
  withGuardrails(guardrails: GuardrailSet): this {
    this.#guardrails = replaceGuardrails(this.#guardrails, guardrails);
    return this;
  }

  /**
   * Checks the graph and compiles it into a runnable workflow.
   * @throws ConfigError for a duplicate node, an edge to or from a node not added, no entry point,
   * or a cycle no conditional edge can leave.
   */
  build(): GraphWorkflow {
    const graph = resolveGraph({
      name: this.#name,
      nodes: this.#nodes,
      edges: this.#edges,
      entryPoints: this.#entryPoints,
    });
    const state = resolveStateOption(`GraphBuilder "${this.#name}"`, this.#state);
    const orchestration = compileGraph(graph, {
      maxTurns: this.#maxTurns,
      stopRule: this.#stop === undefined ? undefined : toStopRule(this.#stop),
      guardrails: this.#guardrails,
    });
    return new GraphWorkflow({ ...orchestration, ...state }, graph, this.#checkpointing);
  }
}
