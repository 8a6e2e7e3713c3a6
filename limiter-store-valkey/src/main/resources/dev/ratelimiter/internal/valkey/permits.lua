-- Permits of concurrency buckets (Algorithm.CONCURRENCY): take one, give some back, or renew their leases, by the
-- rule of RateLimitStore.take, giveBack and renew, as Java's Permits.Leases has it (docs/stores.md#permits). A key's
-- permits are leases, each a permit id and a deadline: a take first drops the leases whose deadline is at or before
-- now, then renews its own id if held (a take sent twice holds one permit), or adds it if fewer than the limit are
-- held; a give-back removes its id (nothing for an id not held: idempotent); a renewal moves a held lease's deadline
-- to now + lease if it has not ended, and never takes an ended one again.
-- KEYS: one permits key per permit, <prefix>{<bucket>:<hashed key>}:permits, in the permits' order (a key may repeat);
--   the store sends in one call only permits whose keys share a Cluster slot.
-- ARGV[1]: the operation, then its arguments:
--   'take': the permit's id (0, StorePermit.CHECK, only counts), the bucket's permits per key, the lease in ms; one key;
--   'give-back': per key, the permit's id;
--   'renew': per key, the permit's id and its lease in ms.
-- Returns: for 'take', {allowed 1 or 0, permits held after it, ended leases it removed}; for 'give-back', nothing;
--   for 'renew', per permit, 1 if it was held and its lease renewed, else 0 (its lease had ended).
-- One sorted set per key: member the permit's id as its decimal text (never read as a number: Lua's doubles hold 53
--   bits, an id 64), score its lease's deadline in ms on the server's clock. ZREMRANGEBYSCORE -inf now drops the
--   ended leases in O(log n + ended), ZSCORE and ZCARD read one lease and the count, ZADD writes a deadline.
-- TIME: a deadline is an instant of its own per permit, which no key expiry can hold (a set holds many), so the
--   script reads the server's clock: one clock for every replica, whatever their own clocks say, as decide.lua's key
--   expiries are. Redis 7 replicates a script's effects, never the script (Redis 5 and 6 by default, every Valkey),
--   so a script may read TIME and then write, and a replica or the AOF gets the deadlines written, not a clock.
-- The set's expiry is its latest deadline, set again after every write (ZRANGE -1 -1 for the latest, PEXPIRE), so
--   no set outlives its leases: it is gone once every lease has ended, with no sweep (and once its last permit is
--   given back, since an empty set is no key).
-- Commands: TIME, ZREMRANGEBYSCORE, ZCARD, ZSCORE, ZADD, ZREM, ZRANGE and PEXPIRE (what an ACL user needs inside the
--   script, beside decide.lua's; reset deletes the set with DEL).

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

-- The set's expiry brought to its latest deadline after a write. A set whose leases have all ended (a give-back
-- left only ended ones) keeps the expiry it has, at most a lease away, so a take still finds and counts them.
local function expireAtLatest(key)
  local latest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if latest[2] then
    local left = tonumber(latest[2]) - now
    if left > 0 then
      redis.call('PEXPIRE', key, string.format('%d', left))
    end
  end
end

local function take(key, id, limit, lease)
  local ended = redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', now))
  local held = redis.call('ZCARD', key)
  local deadline = string.format('%d', now + lease)
  if id ~= '0' and redis.call('ZSCORE', key, id) then
    redis.call('ZADD', key, 'XX', deadline, id) -- held already (a take sent again): its lease renewed
    expireAtLatest(key)
    return {1, held, ended}
  end
  if held >= limit then
    return {0, held, ended}
  end
  if id ~= '0' then -- a check takes nothing
    redis.call('ZADD', key, deadline, id)
    held = held + 1
    expireAtLatest(key)
  end
  return {1, held, ended}
end

local operation = ARGV[1]
if operation == 'take' then
  return take(KEYS[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]))
elseif operation == 'give-back' then
  for i = 1, #KEYS do
    if redis.call('ZREM', KEYS[i], ARGV[i + 1]) == 1 then
      expireAtLatest(KEYS[i])
    end
  end
  return nil
elseif operation == 'renew' then
  local reply = {}
  for i = 1, #KEYS do
    local key = KEYS[i]
    local id = ARGV[2 * i]
    local deadline = redis.call('ZSCORE', key, id)
    -- A lease at or past its deadline has ended, removed or not yet: it is not taken again (nor removed here, so
    -- the next take counts it as ended).
    if deadline and tonumber(deadline) > now then
      redis.call('ZADD', key, 'XX', string.format('%d', now + tonumber(ARGV[2 * i + 1])), id)
      expireAtLatest(key)
      reply[i] = 1
    else
      reply[i] = 0
    end
  end
  return reply
end
return redis.error_reply('permits.lua: unknown operation ' .. tostring(operation))
