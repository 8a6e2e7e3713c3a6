-- One fixed-window decision over every window of a bucket, atomically, in one round trip.
-- KEYS[i]: window i's counter; the keys of one decision share one hash tag {<bucket>:<hash>}, so a Cluster keeps
--   them in one slot.
-- ARGV[1]: the call's cost (0 checks without counting); then per window i: ARGV[2i] its limit, ARGV[2i+1] its
--   length in milliseconds.
-- Returns {allowed (1 or 0), count 1, milliseconds left 1, count 2, milliseconds left 2, ...}: each window's count
-- after the call (a window not open yet: 0) and the time until it ends (not open yet: its whole length). The
-- windows' time is the server's, so replicas with skewed clocks share one window.
-- The call is allowed iff every window has room for the cost (for cost 0: for one attempt); a refused call writes
-- nothing, so it is counted in no window and extends none (the README's "Fixed windows").
-- Commands: PTTL, GET, INCRBY, PEXPIRE (what an ACL user needs inside the script; the README's Valkey section).
local cost = tonumber(ARGV[1])
local needed = math.max(cost, 1)
local allowed = 1
local counts, ttls = {}, {}
for i = 1, #KEYS do
  local limit = tonumber(ARGV[2 * i])
  local window = tonumber(ARGV[2 * i + 1])
  local ttl = redis.call('PTTL', KEYS[i])
  local count = 0
  if ttl == -2 then
    ttl = window -- no counter: the window opens at the first counted call
  else
    count = tonumber(redis.call('GET', KEYS[i]))
    if ttl == -1 then
      -- A counter that lost its expiry: a key must never live forever, or it would lock its client out for good.
      redis.call('PEXPIRE', KEYS[i], window)
      ttl = window
    end
  end
  counts[i] = count
  ttls[i] = ttl
  if count + needed > limit then
    allowed = 0
  end
end
local reply = {allowed}
for i = 1, #KEYS do
  if allowed == 1 and cost > 0 then
    redis.call('INCRBY', KEYS[i], cost) -- keeps an existing expiry: a window's end never moves
    if counts[i] == 0 then
      redis.call('PEXPIRE', KEYS[i], ARGV[2 * i + 1]) -- the window opens
    end
    counts[i] = counts[i] + cost
  end
  reply[2 * i] = counts[i]
  reply[2 * i + 1] = ttls[i]
end
return reply
