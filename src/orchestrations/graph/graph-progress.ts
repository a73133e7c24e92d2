import { z } from 'zod';

import type { GroupAnswer } from '../../engine/orchestration.js';
import { messageToText } from '../../messages/message-text.js';
import { edgeHolds, type GraphTopology } from './graph-topology.js';

/**
 * Where a graph run stands, kept in the session (`SessionState.progress`): the nodes due in the
 * next step (in `addNode` order), per `all` node the sources it waits for whose edges to it have
 * fired since it last ran, and the due nodes whose turns are paused for approvals (they alone go
 * on once decided; absent when none are).
 */
export interface GraphProgress {
  readonly ready: readonly string[];
  readonly fired: Readonly<Record<string, readonly string[]>>;
  readonly paused?: readonly string[] | undefined;
}

/**
 * What a graph session's progress may be: `null` before its first task, or a `GraphProgress` naming
 * only the graph's own nodes. The state validator refuses anything else, so a hand-edited progress
 * cannot break the next run.
 */
export function graphProgressSchema(graph: GraphTopology): z.ZodType<GraphProgress | null> {
  const node = z.string().refine((name) => graph.agents.has(name), {
    error: (issue) => `${JSON.stringify(issue.input)} is not a node of this graph`,
  });
  const nodes = z.array(node).readonly();
  return z
    .strictObject({
      ready: nodes,
      fired: z.record(node, nodes).readonly(),
      paused: nodes.optional(),
    })
    .readonly()
    .nullable();
}

/** A run starting at the entry points. */
export function startProgress(graph: GraphTopology): GraphProgress {
  return { ready: [...graph.entryPoints], fired: {} };
}

/**
 * The progress stored in a session, or null when no run has started. The state validator let
 * only a `GraphProgress` (or null) in (see `graphProgressSchema`).
 */
export function readProgress(value: unknown): GraphProgress | null {
  if (value === null || value === undefined || typeof value !== 'object') return null;
  return value as GraphProgress;
}

/**
 * The progress after `answers`: answered nodes leave the ready set; each edge whose condition
 * holds for its source's answer fires; an `any` node is ready on its first edge, an `all` node once
 * an edge from each source it waits for has fired, or on an edge closing a loop back to it.
 * `paused` are the due nodes whose turns wait for approvals after this step.
 */
export function advance(
  graph: GraphTopology,
  progress: GraphProgress,
  answers: readonly GroupAnswer[],
  paused: readonly string[] = [],
): GraphProgress {
  const answered = new Set(answers.map((a) => a.agent));
  const ready = new Set(progress.ready.filter((n) => !answered.has(n)));
  const fired = new Map(Object.entries(progress.fired).map(([k, v]) => [k, new Set(v)]));
  for (const { agent, response } of answers) {
    const answer = response.chatMessage;
    const text = messageToText(answer);
    for (const edge of graph.edges) {
      if (edge.source !== agent || !edgeHolds(edge, answer, text)) continue;
      const target = edge.target;
      if (graph.activation.get(target) === 'any') {
        ready.add(target);
        continue;
      }
      const waits = graph.waitsFor.get(target) ?? new Set<string>();
      if (!waits.has(agent)) {
        // A loop's edge back: the node runs again.
        ready.add(target);
        continue;
      }
      const got = fired.get(target) ?? new Set<string>();
      got.add(agent);
      if ([...waits].every((s) => got.has(s))) {
        ready.add(target);
        fired.delete(target);
      } else {
        fired.set(target, got);
      }
    }
  }
  return {
    ready: graph.nodes.filter((n) => ready.has(n)),
    fired: Object.fromEntries([...fired].map(([k, v]) => [k, [...v]])),
    ...(paused.length === 0 ? {} : { paused: [...paused] }),
  };
}
