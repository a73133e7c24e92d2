import type { AgentContext, AgentResponse, ChatAgent } from '../agents/chat-agent.js';
import type { Runnable, TaskResult } from '../engine/runnable.js';
import { ConfigError } from '../errors.js';
import type { AgentEvent } from '../messages/message.js';
import { isChatMessage } from '../messages/message.js';
import { textMessage } from '../messages/message-factories.js';
import { messageToText } from '../messages/message-text.js';
import { fieldOf } from '../unknown-value.js';
import { checkParticipantName } from './participant-name.js';

/** Options of `asAgent()`. */
export interface AsAgentOptions {
  /** The agent's name, as other participants and the thread see it. */
  name: string;
  /** What it does, for routers and handoff tools. @default "Runs the nested workflow <name>." */
  description?: string;
}

/** The text a nested run answers with: its last chat message, or the question it paused on. */
function answerText(name: string, result: TaskResult): string {
  if (result.status === 'awaiting_input' && result.pendingRequest !== undefined) {
    return result.pendingRequest.prompt;
  }
  const last = result.messages.filter(isChatMessage).at(-1);
  if (last !== undefined) return messageToText(last);
  if (result.stopReason !== null) return result.stopReason;
  throw new Error(
    `Nested workflow "${name}" ended (${result.status}) without a chat message or a stop reason.`,
  );
}

/**
 * Makes any team, workflow or graph a stateless `ChatAgent`. Each answer runs a
 * fresh inner session whose task is the new messages the agent was given; the inner messages are
 * streamed through `emit` as they happen (they are not recorded in the outer thread), and the
 * answer is a `TextMessage` from `name` with the text of the inner run's last chat message, or
 * the inner run's pending request prompt when it paused. The inner session is dropped afterwards.
 *
 * @example
 * const research = asAgent(new RoundRobinGroupChat([searcher, summarizer], { maxTurns: 2 }), {
 *   name: 'research',
 *   description: 'Finds and summarizes sources.',
 * });
 */
export function asAgent(runnable: Runnable, options: AsAgentOptions): ChatAgent {
  if (runnable === null || typeof runnable !== 'object' || typeof runnable.session !== 'function') {
    throw new ConfigError('asAgent() needs a team, workflow or graph (a Runnable).', {
      path: 'runnable',
    });
  }
  const name = checkParticipantName('asAgent()', options?.name, 'name');
  const description = options.description ?? `Runs the nested workflow ${name}.`;
  return {
    name,
    description,
    async respond(ctx: AgentContext): Promise<AgentResponse> {
      const session = runnable.session();
      let result: TaskResult | undefined;
      try {
        const task = ctx.newMessages.length === 0 ? undefined : [...ctx.newMessages];
        const stream = session.runStream(task, { signal: ctx.signal, outputTaskMessages: false });
        for await (const item of stream) {
          if (item.type === 'TaskResult') result = item;
          // The inner chat messages are streamed like events: seen live, not recorded outside.
          else ctx.emit(item as AgentEvent);
        }
      } finally {
        // A workflow's session can be dropped from memory; a Runnable's need not be.
        const dispose = fieldOf(session, 'dispose');
        if (typeof dispose === 'function') dispose.call(session);
      }
      if (result === undefined) throw new Error(`Nested workflow "${name}" returned no result.`);
      if (result.status === 'cancelled') {
        throw new Error(`Nested workflow "${name}" was cancelled.`);
      }
      const usage = result.usage;
      return {
        chatMessage: textMessage({
          source: name,
          content: answerText(name, result),
          ...(usage.promptTokens + usage.completionTokens > 0 ? { usage } : {}),
        }),
      };
    },
  };
}
