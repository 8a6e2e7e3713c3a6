-- One fixed-window decision, atomically, in one round trip.
-- KEYS[1]: the counter, <prefix>{<bucket>:<hash>}; ARGV[1]: the window in milliseconds.
-- Returns {count, milliseconds until the window ends}; the window's time is the server's, so replicas with
-- skewed clocks share one window.
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  -- A new counter, or one that lost its expiry: a key must never live forever, or one lost PEXPIRE would lock
  -- its client out for good. An existing expiry is never pushed back, so denied attempts do not extend a window.
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
