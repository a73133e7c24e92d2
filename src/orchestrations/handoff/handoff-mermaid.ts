import type { AnyStateMachine } from 'xstate';

/** Mermaid ids must be plain words; agent names may hold `-`. */
const id = (name: string) => `n_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;

/**
 * Draws a compiled handoff machine as a Mermaid flowchart: the user, every participant, the
 * user-reply routes and every guarded handoff edge, read from the machine itself.
 */
export function handoffMermaid(machine: AnyStateMachine, coordinator: string): string {
  const lines = ['flowchart LR', '  n_user((user))'];
  const edges: string[] = [];
  for (const [key, node] of Object.entries(machine.root.states)) {
    const meta = node.meta as { kind: string } | undefined;
    if (meta?.kind === 'agent') {
      lines.push(key === coordinator ? `  ${id(key)}{{"${key}"}}` : `  ${id(key)}["${key}"]`);
      for (const t of node.transitions.get('agent_responded') ?? []) {
        const target = t.target?.[0]?.key;
        if (target === undefined) continue;
        if (target === 'awaitingInput') edges.push(`  ${id(key)} -. asks .-> n_user`);
        else if (target === key) edges.push(`  ${id(key)} -. continues .-> ${id(key)}`);
        else edges.push(`  ${id(key)} -->|handoff_to_${target}| ${id(target)}`);
      }
    }
    if (meta?.kind === 'input') {
      const seen = new Set<string>();
      for (const t of node.transitions.get('user_replied') ?? []) {
        const target = t.target?.[0]?.key;
        if (target === undefined || seen.has(target)) continue;
        seen.add(target);
        edges.push(`  n_user -->|${target === coordinator ? 'message' : 'reply'}| ${id(target)}`);
      }
    }
  }
  return `${[...lines, ...edges].join('\n')}\n`;
}
