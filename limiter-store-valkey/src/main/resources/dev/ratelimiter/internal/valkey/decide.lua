-- Decisions of one or more items, in order, in one round trip: each item atomically over every window of its
-- bucket, by its bucket's algorithm, and the first refused item ends the call (later items are neither decided nor
-- counted).
-- KEYS: each item's window keys, item after item; the keys of one item share one hash tag {<bucket>:<hash>},
--   and the store sends in one call only items whose keys share a Cluster slot.
-- ARGV: per item: its cost (0 checks without counting), its number of windows n, marked by algorithm: n for a fixed
--   window, -n for a token bucket, SLIDING + n (1001 to 1008) for a sliding window; then per window two numbers:
--   for a fixed or sliding window its limit and its length in milliseconds; for a token bucket its capacity in tokens
--   and its token interval in microseconds. A token bucket whose calls reserve their tokens ahead (one window, a
--   max-wait: docs/guide.md#waiting-instead-of-refusing) is marked -(RESERVING + n), and its arguments end with the
--   microseconds it may owe beyond empty.
-- Returns, per decided item: allowed (1 or 0), then per window (after the call): for a fixed window its count (not
-- open yet: 0) and the milliseconds until it ends (not open yet: its whole length); for a token bucket the tokens
-- missing (capacity minus whole tokens left) and the milliseconds until it is full; for a sliding window three
-- numbers: the current window's count, the previous window's count and the milliseconds until the current window
-- ends (no state: 0, 0 and its whole length).
-- An item is allowed iff every window has room for its cost (for cost 0: for one attempt); a refused item writes
-- nothing but the shortening of a key left by a longer window or a larger token bucket (the bucket's settings
-- changed: docs/stores.md#counters-across-a-change-of-settings), so it takes from no window and extends none
-- (docs/guide.md#fixed-windows; the keys of token buckets and sliding windows:
-- docs/stores.md#the-valkey--redis-backend).
-- No TIME: a window's time is its key's expiry on the server's clock, so replicas with skewed clocks share it.
-- Commands: PTTL, GET, INCRBY, PEXPIRE, SET, and DEL for a token bucket's or sliding window's key found without an
-- expiry (what an ACL user needs inside the script; docs/stores.md#the-valkey--redis-backend).

-- The offset that marks a sliding window's item in its window count: above any count of windows (at most 8).
local SLIDING = 1000
-- The offset that marks, before it is negated, a token bucket's item whose calls reserve their tokens ahead.
local RESERVING = 2000

-- Fixed windows: a counter per window, whose expiry is the window's end.
local function fixedWindows(reply, k, a, n, cost, needed)
  local allowed = 1
  local counts, ttls, opens = {}, {}, {}
  for i = 1, n do
    local key = KEYS[k + i]
    local limit = tonumber(ARGV[a + 2 * i])
    local window = tonumber(ARGV[a + 2 * i + 1])
    local ttl = redis.call('PTTL', key)
    local count = 0
    opens[i] = ttl == -2
    if ttl == -2 then
      ttl = window -- no counter: the window opens at the first counted call
    else
      count = tonumber(redis.call('GET', key))
      if ttl == -1 or ttl > window then
        -- A counter that lost its expiry: a key must never live forever, or it would lock its client out for good.
        -- A counter opened under a longer window (the bucket's window was shortened) ends within this one, its count
        -- kept, whatever this call's verdict (docs/stores.md#counters-across-a-change-of-settings).
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
      -- Only for a missing key, not a count of 0: a refund (refund.lua) may leave a window open at 0, whose end stays.
      if opens[i] then
        redis.call('PEXPIRE', KEYS[k + i], ARGV[a + 2 * i + 1]) -- the window opens
      end
      counts[i] = counts[i] + cost
    end
    reply[at + 2 * i] = counts[i]
    reply[at + 2 * i + 1] = ttls[i]
  end
  return allowed
end

-- Token buckets (GCRA): per window, the microseconds until it is full ("owed"), kept as the key's expiry: owed =
-- PTTL x 1000 - the key's value, the sub-millisecond part (0..999). So the key expires exactly when the bucket is
-- full, and a missing key is a full bucket. Every number stays below 2^53 (the bucket's capacity x interval is at
-- most 366 days of microseconds), so Lua's doubles are exact. A bucket that reserves may owe up to "ahead"
-- microseconds beyond empty: an allowed call's tokens then come when owed is back at a full refill, and the calls
-- after it queue behind it (RateLimitStore's javadoc).
local function tokenBuckets(reply, k, a, n, cost, needed, ahead)
  local allowed = 1
  local owed, capacities, intervals = {}, {}, {}
  for i = 1, n do
    local key = KEYS[k + i]
    local capacity = tonumber(ARGV[a + 2 * i])
    local interval = tonumber(ARGV[a + 2 * i + 1])
    local ttl = redis.call('PTTL', key)
    local o = 0
    if ttl >= 0 then
      o = math.max(ttl * 1000 - (tonumber(redis.call('GET', key)) or 0), 0)
      -- At most empty: a bucket whose capacity, rate or window was lowered is not owed more than it can hold, and
      -- its key is set to that, whatever this call's verdict, so it refills from now as the verdict says
      -- (docs/stores.md#counters-across-a-change-of-settings).
      if o > capacity * interval + ahead then
        o = capacity * interval + ahead
        local ms = math.floor((o + 999) / 1000)
        redis.call('SET', key, ms * 1000 - o, 'PX', ms)
      end
    elseif ttl == -1 then
      -- A key without an expiry would never go: read as full and removed, so no key outlives its bucket's refill.
      redis.call('DEL', key)
    end
    owed[i] = o
    capacities[i] = capacity
    intervals[i] = interval
    if needed > capacity or o + needed * interval > capacity * interval + ahead then
      allowed = 0
    end
  end
  local at = #reply
  reply[at + 1] = allowed
  for i = 1, n do
    local o = owed[i]
    if allowed == 1 and cost > 0 then
      o = o + cost * intervals[i]
      local ms = math.floor((o + 999) / 1000)
      redis.call('SET', KEYS[k + i], ms * 1000 - o, 'PX', ms) -- expires when the bucket is full again
    end
    local full = capacities[i] * intervals[i]
    reply[at + 2 * i] = capacities[i] - math.floor((full - o) / intervals[i])
    reply[at + 2 * i + 1] = math.floor((o + 999) / 1000)
  end
  return allowed
end

-- Sliding windows (the sliding window counter; its rule: RateLimitStore's javadoc; its keys:
-- docs/stores.md#the-valkey--redis-backend): per window one key, whose value is "<cur> <prev>" (the current
-- window's count, then the previous one's) and whose expiry is the end of the window after the current one, the
-- current window's end + W. So PTTL alone says where the key stands: above W, in the key's own window, which ends in
-- PTTL - W ms; from 1 to W, the next window has begun and ends in PTTL ms, the key's cur is now the previous count
-- and its prev has slid out; no key (or PTTL 0, the instant it goes): no state, and a counted call opens a window of
-- W ms. The previous window weighs prev x r / W, r the ms until the current window ends, computed as doubles in
-- that order, as Java's SlidingWindow.fits does, so every store decides alike.
local function slidingWindows(reply, k, a, n, cost, needed)
  local allowed = 1
  local curs, prevs, ends, expiries = {}, {}, {}, {}
  for i = 1, n do
    local key = KEYS[k + i]
    local limit = tonumber(ARGV[a + 2 * i])
    local window = tonumber(ARGV[a + 2 * i + 1])
    local ttl = redis.call('PTTL', key)
    local cur, prev, r = 0, 0, window
    local expiry = 2 * window -- a write opens a window: it ends in W, its key in 2W
    if ttl == -1 then
      -- A key without an expiry would never go: read as no state and removed, so no key outlives two windows.
      redis.call('DEL', key)
    elseif ttl > 0 then
      local c, p = string.match(redis.call('GET', key) or '', '^(%d+) (%d+)$')
      c, p = tonumber(c) or 0, tonumber(p) or 0
      if ttl > 2 * window then
        -- Written for a longer window (the bucket's window was shortened): its counts, its current window ending
        -- within W and its key one W later, set whatever this call's verdict
        -- (docs/stores.md#counters-across-a-change-of-settings).
        cur, prev = c, p
        redis.call('PEXPIRE', key, 2 * window)
        expiry = nil
      elseif ttl > window then
        cur, prev, r = c, p, ttl - window
        expiry = nil -- a write keeps the expiry (SET KEEPTTL): a window's end never moves
      elseif c > 0 then
        prev, r = c, ttl -- the next window: it ends when the key does, and a write keeps its key one W more
        expiry = ttl + window
      end
    end
    curs[i], prevs[i], ends[i], expiries[i] = cur, prev, r, expiry
    if not (prev * r / window <= limit - cur - needed) then
      allowed = 0
    end
  end
  local at = #reply
  reply[at + 1] = allowed
  for i = 1, n do
    if allowed == 1 and cost > 0 then
      curs[i] = curs[i] + cost
      local value = string.format('%d %d', curs[i], prevs[i])
      -- KEEPTTL (Redis 6.0+, every Valkey; still the ACL's SET), not PX with the PTTL read above: time runs on
      -- during a script on some servers (Redis 7.0), where PX would push the window's end later at every write.
      if expiries[i] == nil then
        redis.call('SET', KEYS[k + i], value, 'KEEPTTL')
      else
        redis.call('SET', KEYS[k + i], value, 'PX', expiries[i])
      end
    end
    reply[at + 3 * i - 1] = curs[i]
    reply[at + 3 * i] = prevs[i]
    reply[at + 3 * i + 1] = ends[i]
  end
  return allowed
end

local reply = {}
local k = 0 -- the keys of the items before this one
local a = 1 -- this item's first argument
while a <= #ARGV do
  local cost = tonumber(ARGV[a])
  local n = tonumber(ARGV[a + 1])
  local needed = math.max(cost, 1)
  local allowed
  local extra = 0 -- a reserving token bucket's last argument
  if n < 0 then
    n = -n
    local ahead = 0
    if n > RESERVING then
      n = n - RESERVING
      extra = 1
      ahead = tonumber(ARGV[a + 2 + 2 * n])
    end
    allowed = tokenBuckets(reply, k, a, n, cost, needed, ahead)
  elseif n > SLIDING then
    n = n - SLIDING
    allowed = slidingWindows(reply, k, a, n, cost, needed)
  else
    allowed = fixedWindows(reply, k, a, n, cost, needed)
  end
  if allowed == 0 then
    return reply
  end
  k = k + n
  a = a + 2 + 2 * n + extra
end
return reply
