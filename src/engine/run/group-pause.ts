import type { AgentPause } from '../../agents/chat-agent.js';
import { newId } from '../../ids.js';
import type { AgentMessage, FunctionCall } from '../../messages/message.js';
import { toolApprovalRequestEvent } from '../../messages/message-factories.js';
import { messageToText } from '../../messages/message-text.js';
import type { MessageList } from '../../messages/thread.js';
import type { PendingRequest } from '../state/session-state.js';

// A group step (several participants answering at once, e.g. a graph's nodes) in which members
// pause for approvals pauses the session once. A session has one `pendingRequest`, so the pauses
// are one request: every paused member's calls, in the order the group names the members. Each
// member's own `ToolApprovalRequestEvent` stays in the thread, so each decision goes back to the
// member whose call it is, and a member whose calls are all decided goes on at once.

/** A member of a group whose turn is paused, with its calls that still await a decision. */
export interface PausedMember {
  readonly agent: string;
  readonly calls: readonly FunctionCall[];
  /** The roles that may decide its calls, when its tools name approvers. */
  readonly waitingFor?: readonly string[] | undefined;
}

/**
 * The one request of a paused group: `agent` is the first paused member, `prompt` names every
 * call (as a `ToolApprovalRequestEvent`'s text does), `calls` are all members' calls. A group that
 * was paused already keeps its request's id.
 */
export function groupApprovalRequest(
  paused: readonly PausedMember[],
  previous: PendingRequest | null,
): PendingRequest {
  const calls = paused.flatMap((p) => p.calls);
  const agent = (paused[0] as PausedMember).agent;
  const roles = new Set([
    ...(previous?.waitingFor ?? []),
    ...paused.flatMap((p) => p.waitingFor ?? []),
  ]);
  return {
    id: previous?.id ?? newId(),
    agent,
    prompt: messageToText(toolApprovalRequestEvent({ source: agent, content: calls })),
    kind: 'approval',
    calls,
    ...(roles.size === 0 ? {} : { waitingFor: [...roles] }),
  };
}

/**
 * What a member's pause adds to the step, and the calls it leaves awaiting a decision. A pause
 * that continues the group's request (its calls are among `open`, the calls still undecided)
 * adds only what the member did now (the decided calls it ran); a new pause adds its request.
 */
export function memberPause(
  agent: string,
  pause: AgentPause,
  open: ReadonlySet<string>,
): { readonly append: AgentMessage[]; readonly member: PausedMember } {
  const request = pause.approvalRequest;
  const done = pause.innerMessages.filter((m) => m !== request && m.id !== request.id);
  if (request.content.some((c) => open.has(c.id))) {
    return {
      append: done,
      member: {
        agent,
        calls: request.content.filter((c) => open.has(c.id)),
        waitingFor: pause.waitingFor,
      },
    };
  }
  return {
    append: [...done, request],
    member: { agent, calls: request.content, waitingFor: pause.waitingFor },
  };
}

/**
 * Per call id of `calls`, the member that asked for its approval: the source of the latest
 * `ToolApprovalRequestEvent` in `thread` that holds it.
 */
export function approvalOwners(
  thread: MessageList,
  calls: readonly FunctionCall[],
): Map<string, string> {
  const owners = new Map<string, string>();
  const wanted = new Set(calls.map((c) => c.id));
  for (let i = thread.length - 1; i >= 0 && owners.size < wanted.size; i--) {
    const m = thread.at(i);
    if (m?.type !== 'ToolApprovalRequestEvent') continue;
    for (const c of m.content)
      if (wanted.has(c.id) && !owners.has(c.id)) owners.set(c.id, m.source);
  }
  return owners;
}
