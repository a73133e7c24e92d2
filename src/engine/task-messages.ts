import { ConfigError } from '../errors.js';
import type { AgentMessage, ChatMessage } from '../messages/message.js';
import { textMessage } from '../messages/message-factories.js';
import { ChatMessageSchema } from '../messages/message-schema.js';
import { firstIssue } from '../zod-issues.js';
import type { Task, TaskResult } from './runnable.js';
import type { PendingRequest } from './session-state.js';

/** The task as chat messages; a string becomes a `TextMessage` from `"user"`. */
export function toTaskMessages(task: Task | undefined): ChatMessage[] {
  if (task === undefined) return [];
  if (typeof task === 'string') return [textMessage({ source: 'user', content: task })];
  const list: readonly unknown[] = Array.isArray(task) ? task : [task];
  return list.map((message, i) => {
    const parsed = ChatMessageSchema.safeParse(message);
    if (parsed.success) return message as ChatMessage;
    const issue = firstIssue(parsed.error);
    const at = Array.isArray(task) ? `task[${i}].${issue.path}` : `task.${issue.path}`;
    throw new ConfigError(
      `run(): the task is not a chat message: ${at}: ${issue.text.slice(issue.path.length + 2)}. ` +
        'Pass a string, a chat message (e.g. textMessage({source, content})) or an array of them.',
      { path: at },
    );
  });
}

/** Sums the usage of `messages`. */
export function totalUsage(messages: readonly AgentMessage[]): {
  promptTokens: number;
  completionTokens: number;
} {
  let promptTokens = 0;
  let completionTokens = 0;
  for (const m of messages) {
    if (m.usage === undefined) continue;
    promptTokens += m.usage.promptTokens;
    completionTokens += m.usage.completionTokens;
  }
  return { promptTokens, completionTokens };
}

/** The `TaskResult` of a run that produced `messages` and ended with `status`. */
export function taskResult(
  sessionId: string,
  messages: AgentMessage[],
  status: TaskResult['status'],
  stopReason: string | null,
  pending: PendingRequest | null,
): TaskResult {
  return {
    type: 'TaskResult',
    messages,
    stopReason,
    status,
    ...(status === 'awaiting_input' && pending !== null ? { pendingRequest: pending } : {}),
    sessionId,
    usage: totalUsage(messages),
  };
}
