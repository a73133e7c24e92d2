import type { AgentContext, AgentResponse, ChatAgent } from '../../src/agents/chat-agent.js';
import {
  handoffMessage,
  textMessage,
  toolCallExecutionEvent,
  toolCallRequestEvent,
} from '../../src/messages/message-factories.js';

/** What a fake agent saw on one turn. */
export interface SeenTurn {
  readonly agent: string;
  readonly newMessages: string[];
  readonly handoffs: string[];
  readonly threadLength: number;
}

/** One scripted turn: text, a handoff, or a function of the context. */
export type FakeTurn =
  | { say: string; usage?: { promptTokens: number; completionTokens: number } }
  | { handoff: string; note?: string }
  | ((ctx: AgentContext) => Promise<AgentResponse> | AgentResponse);

/**
 * A `ChatAgent` that plays scripted turns without a model, recording what it saw in `log`, for
 * engine and orchestration tests. Running past its script throws a clear error.
 */
export class FakeAgent implements ChatAgent {
  readonly name: string;
  readonly description: string;
  readonly log: SeenTurn[];
  readonly #turns: FakeTurn[];
  #next = 0;

  constructor(
    name: string,
    turns: FakeTurn[],
    log: SeenTurn[] = [],
    description = `${name} agent`,
  ) {
    this.name = name;
    this.log = log;
    this.description = description;
    this.#turns = turns;
  }

  async respond(ctx: AgentContext): Promise<AgentResponse> {
    this.log.push({
      agent: this.name,
      newMessages: ctx.newMessages.map(
        (m) => `${m.source}: ${'content' in m ? String(m.content) : ''}`,
      ),
      handoffs: (ctx.handoffs ?? []).map((h) => h.name),
      threadLength: ctx.conversation.length,
    });
    const turn = this.#turns[this.#next];
    if (turn === undefined) {
      throw new Error(`FakeAgent "${this.name}" has no turn #${this.#next + 1}`);
    }
    this.#next++;
    if (typeof turn === 'function') return turn(ctx);
    if ('say' in turn) {
      return {
        chatMessage: textMessage({
          source: this.name,
          content: turn.say,
          ...(turn.usage ? { usage: turn.usage } : {}),
        }),
      };
    }
    const call = {
      id: `call_${this.name}_${this.#next}`,
      name: `handoff_to_${turn.handoff}`,
      arguments: '{}',
    };
    const content = `Transferred to ${turn.handoff}, adopting the role of ${turn.handoff} immediately.`;
    return {
      innerMessages: [
        toolCallRequestEvent({ source: this.name, content: [call] }),
        toolCallExecutionEvent({
          source: this.name,
          content: [{ callId: call.id, name: call.name, content, isError: false }],
        }),
      ],
      chatMessage: handoffMessage({ source: this.name, target: turn.handoff, content }),
    };
  }
}

/** `type(source): text` for each message, for whole-thread assertions. */
export function transcript(
  messages: readonly { type: string; source: string; content?: unknown }[],
): string[] {
  return messages.map((m) => {
    const text = typeof m.content === 'string' ? `: ${m.content}` : '';
    return `${m.type}(${m.source})${text}`;
  });
}
