-- Jakarta Rate Limiter: the counters every replica shares (ratelimiter.backend=postgres).
-- Apply with its own Flyway location and history table (docs/stores.md#the-table), so it never collides with the
-- application's own V1. The same file is packaged in limiter-impl as db/ratelimiter/postgres/.

CREATE TABLE IF NOT EXISTS rate_limit_counters (
    bucket  varchar(64)  NOT NULL,   -- the bucket's name
    key     varchar(128) NOT NULL,   -- the key, hashed (HMAC-SHA-256 or SHA-256, base64url): never in clear
    ends_at timestamptz  NOT NULL,   -- when the current window ends
    count   bigint       NOT NULL,   -- attempts in the current window, denied ones included
    PRIMARY KEY (bucket, key)
);

-- The sweep deletes rows whose window has ended (ends_at <= now) in batches; this index finds them without
-- reading the whole table.
CREATE INDEX IF NOT EXISTS rate_limit_counters_ends_at ON rate_limit_counters (ends_at);
