-- A fixed window of one window and a positive cost: count and ends_at. Counting, deciding and reopening an ended
-- window are this one upsert: no read before the write, no explicit transaction, no advisory lock. A row whose window
-- has ended, or that holds several windows (the bucket had several before), opens a new window. A row whose window
-- ends later than this window's length from now (opened under a longer window of the bucket's name: its settings
-- changed) is brought within it, its count kept, whether the call is allowed or refused
-- (docs/stores.md#counters-across-a-change-of-settings). A refusal changes no count and sets denied, which RETURNING
-- reads back (it shows the new row only). Typed casts: a client that binds untyped text (pgbench -M prepared)
-- compares numbers, not strings.
INSERT INTO ${table} AS c (bucket, key, ends_at, count, denied)
VALUES (:bucket, :key, ${now} + :window_ms::bigint * interval '1 millisecond',
        CASE WHEN :cost::bigint <= :limit::bigint THEN :cost::bigint ELSE 0 END,
        :cost::bigint > :limit::bigint)
ON CONFLICT (bucket, key) DO UPDATE SET
    count = CASE WHEN (c.ends_at <= ${now} OR c.window_seconds IS NOT NULL) THEN EXCLUDED.count
                 WHEN c.count + :cost::bigint <= :limit::bigint THEN c.count + :cost::bigint
                 ELSE c.count END,
    ends_at = CASE WHEN (c.ends_at <= ${now} OR c.window_seconds IS NOT NULL) THEN EXCLUDED.ends_at
                   ELSE LEAST(c.ends_at, EXCLUDED.ends_at) END,
    denied = CASE WHEN (c.ends_at <= ${now} OR c.window_seconds IS NOT NULL) THEN EXCLUDED.denied
                  ELSE NOT (c.count + :cost::bigint <= :limit::bigint) END,
    window_seconds = NULL, window_counts = NULL, window_ends = NULL
RETURNING count, ends_at, denied, ${now}
