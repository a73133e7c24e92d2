import { ConfigError } from '../../errors.js';
import type { AgentMessage } from '../../messages/message.js';
import { textMessage } from '../../messages/message-factories.js';
import {
  ChatMessageSchema,
  ToolApprovalResponseEventSchema,
} from '../../messages/message-schema.js';
import { fieldOf } from '../../unknown-value.js';
import { firstIssue } from '../../zod-issues.js';
import type { Task, TaskMessage, TaskResult } from '../runnable.js';
import type { PendingRequest } from '../state/session-state.js';

/**
 * The task as messages: chat messages and approval decisions; a string becomes a `TextMessage`
 * from `"user"`.
 */
export function toTaskMessages(task: Task | undefined): TaskMessage[] {
  if (task === undefined) return [];
  if (typeof task === 'string') return [textMessage({ source: 'user', content: task })];
  const list: readonly unknown[] = Array.isArray(task) ? task : [task];
  return list.map((message, i) => {
    const isDecision = fieldOf(message, 'type') === 'ToolApprovalResponseEvent';
    const parsed = (isDecision ? ToolApprovalResponseEventSchema : ChatMessageSchema).safeParse(
      message,
    );
    if (parsed.success) return message as TaskMessage;
    const issue = firstIssue(parsed.error);
    const at = Array.isArray(task) ? `task[${i}].${issue.path}` : `task.${issue.path}`;
    throw new ConfigError(
      `run(): the task is not a chat message: ${at}: ${issue.text.slice(issue.path.length + 2)}. ` +
        'Pass a string, a chat message (e.g. textMessage({source, content})), approve(callId) / ' +
        'reject(callId) or an array of them.',
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
  for (const { usage } of messages) {
    if (usage === undefined) continue;
    promptTokens += usage.promptTokens;
    completionTokens += usage.completionTokens;
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
    ...(status === 'awaiting_input' && pending !== null
      ? { pendingRequest: pending.kind === undefined ? { ...pending, kind: 'input' } : pending }
      : {}),
    sessionId,
    usage: totalUsage(messages),
  };
}
