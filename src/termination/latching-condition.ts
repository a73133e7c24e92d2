import { z } from 'zod';

import type { AgentMessage, StopMessage } from '../messages/message.js';
import { parseState, TerminationCondition } from './termination-condition.js';

const latchStateSchema = z.object({ terminated: z.boolean() });

/**
 * A condition whose whole state is one flag: it looks for a message in each delta and latches when
 * it finds one. Subclasses say what they look for in `match()`.
 */
export abstract class LatchingCondition extends TerminationCondition {
  #terminated = false;

  /** The class name, used as the `StopMessage` source. */
  protected abstract readonly kind: string;

  /** The `StopMessage` content when the delta contains what this condition looks for, else null. */
  protected abstract match(
    messages: readonly AgentMessage[],
  ): string | null | Promise<string | null>;

  get terminated(): boolean {
    return this.#terminated;
  }

  async check(messages: readonly AgentMessage[]): Promise<StopMessage | null> {
    this.assertNotTerminated();
    const content = await this.match(messages);
    if (content === null) return null;
    this.#terminated = true;
    return this.stop(this.kind, content);
  }

  reset(): void {
    this.#terminated = false;
  }

  override saveState(): unknown {
    return { terminated: this.#terminated };
  }

  override loadState(state: unknown): void {
    this.#terminated = parseState(this.kind, latchStateSchema, state).terminated;
  }
}
