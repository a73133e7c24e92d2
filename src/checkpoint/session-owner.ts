import type { CheckpointStore } from './checkpoint-store.js';
import { hasOwnerLookup, OWNER_OF } from './session-list.js';

/**
 * The owner key a stored session is recorded under (undefined: none, or no such session), read
 * through the store's owner lookup or, for a store without one, its list.
 */
export async function sessionOwner(
  store: CheckpointStore,
  id: string,
): Promise<string | undefined> {
  if (hasOwnerLookup(store)) return (await store[OWNER_OF](id)).owner;
  let cursor: string | undefined;
  do {
    const page = await store.list({ limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
    const found = page.sessions.find((s) => s.id === id);
    if (found !== undefined) return found.owner;
    cursor = page.cursor;
  } while (cursor !== undefined);
  return undefined;
}
