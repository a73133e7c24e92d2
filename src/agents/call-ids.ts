import { randomUUID } from 'node:crypto';

import type { AgentMessage, FunctionCall } from '../messages/message.js';

/** Every tool call id the thread already uses. */
export function callIdsIn(thread: readonly AgentMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const m of thread) {
    if (m.type !== 'ToolCallRequestEvent') continue;
    for (const c of m.content) ids.add(c.id);
  }
  return ids;
}

/**
 * The calls with ids that are unique in the thread: some servers repeat ids (`call_0`) or send
 * none, and a result pairs with its call by id. New ids are added to `used`.
 */
export function withUniqueIds(calls: readonly FunctionCall[], used: Set<string>): FunctionCall[] {
  return calls.map(({ id, name, arguments: args }) => {
    const unique = id === '' || used.has(id) ? `call_${randomUUID()}` : id;
    used.add(unique);
    return { id: unique, name, arguments: args };
  });
}
