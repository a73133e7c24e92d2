import { createHash } from 'node:crypto';

// The Lua scripts of RedisCheckpointStore: each operation on a session's keys is one atomic script.

/** A Lua script, run by its SHA-1 and sent whole only when the server does not know it yet. */
export interface Script {
  readonly source: string;
  readonly sha: string;
}

const script = (source: string): Script => ({
  source,
  sha: createHash('sha1').update(source).digest('hex'),
});

export const LOST_INDEX = 'its Redis log has entries but no snapshot index (a key was deleted?)';
export const LOST_LOG =
  'its Redis snapshot index remains but its log list is gone (a key was deleted?)';

// KEYS: log (a list of "S"/"P" + data, one per step), snapshots (a sorted set of snapshot steps).
// The log's first step is its lowest snapshot step, so step i is at list index i - first.
// ARGV: step, "1" for a snapshot, the entry.
// A log list without its index, or an index without its list, is damage (a deleted key), never an
// empty session: both keys are written together and only ever deleted together.
export const APPEND = script(`
local length = redis.call('LLEN', KEYS[1])
local first = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if length == 0 then
  if first then return redis.error_reply('BATON_CORRUPT ${LOST_LOG}') end
  if ARGV[2] ~= '1' then return 0 end
else
  if not first then return redis.error_reply('BATON_CORRUPT ${LOST_INDEX}') end
  if tonumber(first) + length ~= tonumber(ARGV[1]) then return 0 end
end
redis.call('RPUSH', KEYS[1], ARGV[3])
if ARGV[2] == '1' then redis.call('ZADD', KEYS[2], ARGV[1], ARGV[1]) end
return 1`);

// KEYS: log, snapshots. ARGV: "start" | "after" | "snapshot", after, upTo.
// Replies {first step returned, entries} or {} when nothing matches.
export const READ = script(`
local first = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
local length = redis.call('LLEN', KEYS[1])
if not first then
  if length > 0 then return redis.error_reply('BATON_CORRUPT ${LOST_INDEX}') end
  return {}
end
if length == 0 then return redis.error_reply('BATON_CORRUPT ${LOST_LOG}') end
first = tonumber(first)
local upTo = math.min(first + length - 1, tonumber(ARGV[3]))
local from = first
if ARGV[1] == 'after' then
  from = math.max(first, tonumber(ARGV[2]) + 1)
elseif ARGV[1] == 'snapshot' then
  local snapshot = redis.call('ZREVRANGEBYSCORE', KEYS[2], upTo, '-inf', 'LIMIT', 0, 1)[1]
  if not snapshot then return {} end
  from = tonumber(snapshot)
end
if from > upTo then return {} end
return {from, redis.call('LRANGE', KEYS[1], from - first, upTo - first)}`);

// KEYS: lease. ARGV: owner, ttl in ms. Takes a free lease or renews the owner's own.
export const ACQUIRE = script(`
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`);

// KEYS: lease. ARGV: owner.
export const RELEASE = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`);
