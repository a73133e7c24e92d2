import type { AnyStateMachine } from 'xstate';

import type { EdgeMeta } from '../flat-machine.js';
import { ROUTER_STATE } from './handoff-router.js';

/** Mermaid ids must be plain words; agent names may hold `-`. */
const id = (name: string) => `n_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;

/**
 * Draws a compiled handoff machine as a Mermaid flowchart: the user, every participant, the
 * `classifying` state when there is one, the user-reply routes and every guarded handoff edge,
 * read from the machine itself.
 */
export function handoffMermaid(machine: AnyStateMachine, coordinator: string): string {
  const lines = ['flowchart LR', '  n_user((user))'];
  const edges: string[] = [];
  const edgesOf = (node: AnyStateMachine['root']) =>
    [...node.transitions.values()].flat().flatMap((t) => {
      const target = t.target?.[0]?.key;
      // XState types `meta` as any; flat-machine.ts writes it in this shape.
      const meta: EdgeMeta | undefined = t.meta;
      const kind = meta?.edge;
      const guard = meta?.guard === undefined ? '' : ` [${meta.guard}]`;
      return target === undefined || kind === undefined ? [] : [{ target, kind, guard }];
    });
  for (const [key, node] of Object.entries(machine.root.states)) {
    const meta: { kind: string } | undefined = node.meta;
    const router = key === ROUTER_STATE;
    if (router) lines.push(`  ${id(key)}(["${key}"])`);
    else if (meta?.kind === 'agent') {
      lines.push(key === coordinator ? `  ${id(key)}{{"${key}"}}` : `  ${id(key)}["${key}"]`);
    }
    if (meta?.kind === 'agent' || meta?.kind === 'select') {
      for (const { target, kind, guard } of edgesOf(node)) {
        if (kind === 'asks') edges.push(`  ${id(key)} -. asks .-> n_user`);
        else if (kind === 'continues') edges.push(`  ${id(key)} -. continues .-> ${id(key)}`);
        else if (kind === 'reroute')
          edges.push(`  ${id(key)} -. outside my area .-> ${id(target)}`);
        else if (router) edges.push(`  ${id(key)} -->|routes| ${id(target)}`);
        else edges.push(`  ${id(key)} -->|handoff_to_${target}${guard}| ${id(target)}`);
      }
    }
    if (meta?.kind === 'input') {
      const targets = edgesOf(node).map((e) => e.target);
      for (const target of new Set(targets)) {
        const first = target === coordinator || target === ROUTER_STATE;
        edges.push(`  n_user -->|${first ? 'message' : 'reply'}| ${id(target)}`);
      }
    }
  }
  return `${[...lines, ...edges].join('\n')}\n`;
}
