import type { ChatAgent } from '../agents/chat-agent.js';
import { Handoff } from '../agents/handoff.js';
import { ConfigError } from '../errors.js';
import { fieldOf } from '../unknown-value.js';

/** The handoffs an agent brings of its own (`new Agent({ handoffs })`), for agents that expose them. */
export function ownHandoffs(agent: ChatAgent): Handoff[] {
  const handoffs = fieldOf(agent, 'handoffs');
  return Array.isArray(handoffs) ? handoffs.filter((h): h is Handoff => h instanceof Handoff) : [];
}

/**
 * Checks that every handoff an agent brings of its own leads somewhere the workflow can go: a
 * participant, or one of the targets `outside` the team it can stop or pause at (`"user"`, a
 * `HandoffTermination` target). Otherwise the handoff would be offered to the model and fail only
 * when the model calls it, mid-run.
 *
 * @throws ConfigError naming the agent, the target and what to do.
 */
export function checkOwnHandoffs(
  owner: string,
  participants: readonly ChatAgent[],
  outside: ReadonlySet<string>,
): void {
  const names = participants.map((a) => a.name);
  for (const [i, agent] of participants.entries()) {
    for (const handoff of ownHandoffs(agent)) {
      if (names.includes(handoff.target) || outside.has(handoff.target)) continue;
      const elsewhere = [...outside].map((t) => `"${t}"`).join(' or ');
      throw new ConfigError(
        `${owner}: agent "${agent.name}" hands off to "${handoff.target}", which is not a ` +
          `participant (${names.map((n) => `"${n}"`).join(', ')}) nor ${elsewhere}. Add ` +
          `"${handoff.target}" to the participants or remove it from the agent's handoffs.`,
        { path: `participants[${i}].handoffs` },
      );
    }
  }
}
