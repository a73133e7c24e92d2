import type { AgentContext } from '../../src/agents/chat-agent.js';
import type { Timer } from '../../src/agents/tool-execution.js';
import type { AgentEvent, AgentMessage } from '../../src/messages/message.js';

/** An `AgentContext` for one turn, recording what the agent emits. */
export function createTestContext(
  init: Partial<Omit<AgentContext, 'emit'>> & { conversation?: readonly AgentMessage[] } = {},
): { ctx: AgentContext; emitted: AgentEvent[] } {
  const emitted: AgentEvent[] = [];
  const ctx: AgentContext = {
    conversation: [],
    newMessages: [],
    signal: new AbortController().signal,
    sessionId: 'session-1',
    ...init,
    emit: (event) => emitted.push(event),
  };
  return { ctx, emitted };
}

/** A message without its generated `id` and `createdAt`, for exact comparisons. */
export function shape(message: AgentMessage): Record<string, unknown> {
  const { id: _id, createdAt: _at, ...rest } = message;
  if (rest.type === 'HandoffMessage' && rest.context !== undefined) {
    return { ...rest, context: rest.context.map(shape) };
  }
  return rest;
}

/** A `Timer` that fires only when the test says so. */
export class ManualTimer {
  readonly #pending = new Map<number, { ms: number; fire: () => void }>();
  #next = 0;

  readonly timer: Timer = (ms, fire) => {
    const id = this.#next++;
    this.#pending.set(id, { ms, fire });
    return () => this.#pending.delete(id);
  };

  /** The delays of the timers still pending. */
  get pending(): number[] {
    return [...this.#pending.values()].map((p) => p.ms);
  }

  /** Fires every pending timer. */
  fireAll(): void {
    const due = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of due) p.fire();
  }
}
