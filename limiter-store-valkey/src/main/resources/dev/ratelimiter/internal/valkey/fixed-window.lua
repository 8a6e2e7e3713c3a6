-- Fixed-window decisions of one or more items, in order, in one round trip: each item atomically over every window
-- of its bucket, and the first refused item ends the call (later items are neither decided nor counted).
-- KEYS: each item's window counters, item after item; the keys of one item share one hash tag {<bucket>:<hash>},
--   and the store sends in one call only items whose keys share a Cluster slot.
-- ARGV: per item: its cost (0 checks without counting), its number of windows n, then per window its limit and
--   its length in milliseconds.
-- Returns, per decided item: allowed (1 or 0), then per window its count after the call (a window not open yet: 0)
-- and the milliseconds until it ends (not open yet: its whole length). The windows' time is the server's, so
-- replicas with skewed clocks share one window.
-- An item is allowed iff every window has room for its cost (for cost 0: for one attempt); a refused item writes
-- nothing, so it is counted in no window and extends none (docs/guide.md#fixed-windows).
-- Commands: PTTL, GET, INCRBY, PEXPIRE (what an ACL user needs inside the script;
-- docs/stores.md#the-valkey--redis-backend).
local reply = {}
local k = 0 -- the keys of the items before this one
local a = 1 -- this item's first argument
while a <= #ARGV do
  local cost = tonumber(ARGV[a])
  local n = tonumber(ARGV[a + 1])
  local needed = math.max(cost, 1)
  local allowed = 1
  local counts, ttls = {}, {}
  for i = 1, n do
    local key = KEYS[k + i]
    local limit = tonumber(ARGV[a + 2 * i])
    local window = tonumber(ARGV[a + 2 * i + 1])
    local ttl = redis.call('PTTL', key)
    local count = 0
    if ttl == -2 then
      ttl = window -- no counter: the window opens at the first counted call
    else
      count = tonumber(redis.call('GET', key))
      if ttl == -1 then
        -- A counter that lost its expiry: a key must never live forever, or it would lock its client out for good.
        redis.call('PEXPIRE', key, window)
        ttl = window
      end
    end
    counts[i] = count
    ttls[i] = ttl
    if count + needed > limit then
      allowed = 0
    end
  end
  local at = #reply
  reply[at + 1] = allowed
  for i = 1, n do
    if allowed == 1 and cost > 0 then
      redis.call('INCRBY', KEYS[k + i], cost) -- keeps an existing expiry: a window's end never moves
      if counts[i] == 0 then
        redis.call('PEXPIRE', KEYS[k + i], ARGV[a + 2 * i + 1]) -- the window opens
      end
      counts[i] = counts[i] + cost
    end
    reply[at + 2 * i] = counts[i]
    reply[at + 2 * i + 1] = ttls[i]
  end
  if allowed == 0 then
    return reply
  end
  k = k + n
  a = a + 2 + 2 * n
end
return reply
