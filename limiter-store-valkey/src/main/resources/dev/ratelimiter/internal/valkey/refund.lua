-- Refunds of one or more calls, in one round trip: each refund's cost given back to the windows its call was
-- counted in, or taken there when negative (a debit of a cost settled after the call), by the rule of
-- RateLimitStore.refund, on the keys and values decide.lua keeps. A window that has ended, opened since or never
-- opened is left alone: a refund creates no key, opens no window and moves no window's end; only a token bucket's
-- debit sets a key, the bucket's time owed.
-- KEYS: each refund's window keys, refund after refund, as decide.lua's for an item of the same bucket; the store
--   sends in one call only refunds whose keys share a Cluster slot.
-- ARGV: per refund: its cost, its number of windows n, marked by algorithm as in decide.lua (n for a fixed window,
--   -n for a token bucket, SLIDING + n for a sliding window); then per window two numbers: for a fixed or sliding
--   window its length in milliseconds and the milliseconds until the window the call was counted in ends (0: it has
--   ended); for a token bucket its capacity in tokens and its token interval in microseconds. A reserving token
--   bucket is marked -(RESERVING + n) and its arguments end with the microseconds it may owe beyond empty, as in
--   decide.lua.
-- Returns nothing.
-- No TIME: where a window stands is its key's PTTL on the server's clock, as decide.lua reads it, so the refund's
-- reckoning and the window it names are compared on the clock that times the window.
-- Commands: PTTL, GET, INCRBY, SET and DEL, all among decide.lua's, so the limiter's ACL user needs nothing more
-- (INCRBY by a negative amount rather than DECRBY for that reason).

local SLIDING = 1000
local RESERVING = 2000

-- StoreRefund.sameWindow: the refund names the window the store holds if that one ends before the refund's end plus
-- half a window (Java's integer halving, hence the floor). A PTTL of -1 or -2 (no expiry, no key) never matches.
local function sameWindow(endsIn, storeEndsIn, window)
  return endsIn > 0 and storeEndsIn > 0 and storeEndsIn < endsIn + math.floor(window / 2)
end

-- Fixed windows: the counter's expiry is its window's end. INCRBY keeps that expiry, so the end stays.
local function fixedWindows(k, a, n, cost)
  for i = 1, n do
    local key = KEYS[k + i]
    local window = tonumber(ARGV[a + 2 * i])
    local endsIn = tonumber(ARGV[a + 2 * i + 1])
    if sameWindow(endsIn, redis.call('PTTL', key), window) then
      local count = tonumber(redis.call('GET', key)) or 0
      if count > 0 or cost < 0 then
        -- The key stays at 0 rather than going: its window is still open, and decide.lua keeps its end. A debit
        -- (a negative cost) raises the count, past the limit if so.
        redis.call('INCRBY', key, string.format('%d', -math.min(cost, count)))
      end
    end
  end
end

-- Token buckets: owed = PTTL x 1000 - value, microseconds until full (decide.lua). Lowered by cost x interval; a
-- bucket full again has no key, as decide.lua reads a missing key.
local function tokenBuckets(k, a, n, cost, ahead)
  for i = 1, n do
    local key = KEYS[k + i]
    local capacity = tonumber(ARGV[a + 2 * i])
    local interval = tonumber(ARGV[a + 2 * i + 1])
    local ttl = redis.call('PTTL', key)
    if cost < 0 then
      -- A debit (TokenBuckets.debited): the time owed grows by the tokens' time, up to a full refill; a missing key
      -- (full), or one without an expiry (decide.lua reads it as full), owes nothing before it.
      local owed = 0
      if ttl > 0 then
        owed = math.max(ttl * 1000 - (tonumber(redis.call('GET', key)) or 0), 0)
      end
      owed = math.min(owed + math.min(-cost, capacity + 1) * interval, capacity * interval + ahead)
      local ms = math.floor((owed + 999) / 1000)
      redis.call('SET', key, string.format('%d', ms * 1000 - owed), 'PX', ms)
    -- No key is full already; one without an expiry decide.lua reads as full and removes.
    elseif ttl > 0 then
      local owed = ttl * 1000 - (tonumber(redis.call('GET', key)) or 0)
      owed = math.min(owed, capacity * interval + ahead) - cost * interval
      if owed <= 0 then
        redis.call('DEL', key)
      else
        local ms = math.floor((owed + 999) / 1000)
        redis.call('SET', key, string.format('%d', ms * 1000 - owed), 'PX', ms) -- expires when full again
      end
    end
  end
end

-- Sliding windows: value "<cur> <prev>", expiry the current window's end + W (decide.lua). With PTTL up to W the
-- window the key counted in has ended and its cur now weighs as the previous count: left alone.
local function slidingWindows(k, a, n, cost)
  for i = 1, n do
    local key = KEYS[k + i]
    local window = tonumber(ARGV[a + 2 * i])
    local endsIn = tonumber(ARGV[a + 2 * i + 1])
    local ttl = redis.call('PTTL', key)
    if ttl > window and sameWindow(endsIn, ttl - window, window) then
      local cur, prev = string.match(redis.call('GET', key) or '', '^(%d+) (%d+)$')
      cur = tonumber(cur)
      if cur ~= nil and (cur > 0 or cost < 0) then
        -- KEEPTTL for the reason decide.lua gives; prev is written back as it was read.
        redis.call('SET', key, string.format('%d %s', math.max(cur - cost, 0), prev), 'KEEPTTL')
      end
    end
  end
end

local k = 0 -- the keys of the refunds before this one
local a = 1 -- this refund's first argument
while a <= #ARGV do
  local cost = tonumber(ARGV[a])
  local n = tonumber(ARGV[a + 1])
  local extra = 0 -- a reserving token bucket's last argument
  if n < 0 then
    n = -n
    local ahead = 0
    if n > RESERVING then
      n = n - RESERVING
      extra = 1
      ahead = tonumber(ARGV[a + 2 + 2 * n])
    end
    tokenBuckets(k, a, n, cost, ahead)
  elseif n > SLIDING then
    n = n - SLIDING
    slidingWindows(k, a, n, cost)
  else
    fixedWindows(k, a, n, cost)
  end
  k = k + n
  a = a + 2 + 2 * n + extra
end
