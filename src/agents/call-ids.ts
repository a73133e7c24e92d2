import type { FunctionCall } from '../messages/message.js';
import { newId } from '../ids.js';

/**
 * The calls with ids that are unique in the thread: some servers repeat ids (`call_0`) or send
 * none, and a result pairs with its call by id. New ids are added to `used` (a turn that makes one
 * call in one model call needs none). A call to a tool in `toolNames` names it with that map's
 * string (one string per tool, however many calls).
 */
export function withUniqueIds(
  calls: readonly FunctionCall[],
  inThread: ReadonlySet<string>,
  used: Set<string> | undefined,
  toolNames: ReadonlyMap<string, string> = new Map(),
): FunctionCall[] {
  if (used === undefined && calls.length > 1) used = new Set();
  return calls.map(({ id, name, arguments: args }) => {
    const unique = id === '' || inThread.has(id) || used?.has(id) ? newId('call_') : id;
    used?.add(unique);
    return { id: unique, name: toolNames.get(name) ?? name, arguments: args };
  });
}
