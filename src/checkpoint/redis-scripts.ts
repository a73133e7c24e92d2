import { createHash } from 'node:crypto';

import { z } from 'zod';

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

// KEYS: log (a list of "S"/"P" + data, one per step), snapshots (a sorted set of snapshot steps),
// index (every session by updatedAt), steps (a hash: id to last step), owners (a hash: id to owner).
// The log's first step is its lowest snapshot step, so step i is at list index i - first.
// ARGV: step, "1" for a snapshot, the entry, session id, time (ms), "1" when an owner is given,
// the owner, key prefix. An owner's index, <prefix>owner:<owner>, is named from the stored owner.
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
if length == 0 and ARGV[6] == '1' then redis.call('HSET', KEYS[5], ARGV[4], ARGV[7]) end
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[4])
redis.call('HSET', KEYS[4], ARGV[4], ARGV[1])
local owner = redis.call('HGET', KEYS[5], ARGV[4])
if owner then redis.call('ZADD', ARGV[8] .. 'owner:' .. owner, ARGV[5], ARGV[4]) end
return 1`);

// KEYS: log, snapshots, lease, index, steps, owners. ARGV: session id, key prefix, and a time
// (ms) to delete only a session last updated before it, or "" to delete it whatever its age.
// Replies {1 when it had a log, 1 when it was in the index}.
export const DELETE = script(`
local at = redis.call('ZSCORE', KEYS[4], ARGV[1])
if ARGV[3] ~= '' and not (at and tonumber(at) < tonumber(ARGV[3])) then return {0, 0} end
local had = redis.call('EXISTS', KEYS[1])
local owner = redis.call('HGET', KEYS[6], ARGV[1])
if owner then redis.call('ZREM', ARGV[2] .. 'owner:' .. owner, ARGV[1]) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('HDEL', KEYS[5], ARGV[1])
redis.call('HDEL', KEYS[6], ARGV[1])
return {had, redis.call('ZREM', KEYS[4], ARGV[1])}`);
export const deleteReply = z.tuple([z.number(), z.number()]);

// KEYS: an index (every session's, or one owner's), steps, owners. ARGV: "1" after a cursor, its
// time, its id, how many. Newest first, ties by id in byte order: each time's members come
// ascending from ZRANGEBYSCORE. Replies id, time, step, owner (or nil) per session.
export const LIST = script(`
local function above(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = a:byte(i), b:byte(i)
    if x ~= y then return x > y end
  end
  return #a > #b
end
local want = tonumber(ARGV[4])
local found = {}
local upper = '+inf'
if ARGV[1] == '1' then
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[2], ARGV[2])) do
    if #found < want and above(id, ARGV[3]) then found[#found + 1] = {id, ARGV[2]} end
  end
  upper = '(' .. ARGV[2]
end
while #found < want do
  local top = redis.call('ZREVRANGEBYSCORE', KEYS[1], upper, '-inf', 'WITHSCORES', 'LIMIT', 0, 1)
  if #top == 0 then break end
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], top[2], top[2])) do
    if #found < want then found[#found + 1] = {id, top[2]} end
  end
  upper = '(' .. top[2]
end
local reply = {}
for _, entry in ipairs(found) do
  reply[#reply + 1] = entry[1]
  reply[#reply + 1] = entry[2]
  reply[#reply + 1] = redis.call('HGET', KEYS[2], entry[1]) or '0'
  reply[#reply + 1] = redis.call('HGET', KEYS[3], entry[1])
end
return reply`);

export const listReply = z.array(z.string().nullable());

// KEYS: index. ARGV: time (ms), how many. The ids of sessions last updated before the time.
export const OLDER = script(`
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, ARGV[2])`);
export const idsReply = z.array(z.string());

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
/** READ's reply when something matches (the empty reply is checked first). */
export const readReply = z.tuple([z.number(), z.array(z.string())]);

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
