-- Jakarta Rate Limiter: several windows per bucket, and refused calls that count nothing
-- (docs/guide.md#fixed-windows). Applied after V1, by Flyway from the same location and history table, or by hand
-- (psql -f V1__... then psql -f V2__...). Adding nullable columns, and one with a constant default, rewrites no
-- row and keeps the table readable by the previous version during a rolling upgrade.

-- Whether the last call on the row was refused. A refused call leaves count and ends_at as they were, so the
-- one statement reads its own decision back from here (RETURNING shows the new row only).
ALTER TABLE rate_limit_counters ADD COLUMN IF NOT EXISTS denied boolean NOT NULL DEFAULT false;

-- A bucket of several windows keeps them all in its one row, shortest window first; a bucket of one window leaves
-- these NULL and keeps using count and ends_at. For a row of several windows, ends_at is when the last of them
-- ends (the sweep deletes the row then, through the ends_at index) and count is the first window's count.
ALTER TABLE rate_limit_counters ADD COLUMN IF NOT EXISTS window_seconds bigint[];      -- each window's length
ALTER TABLE rate_limit_counters ADD COLUMN IF NOT EXISTS window_counts  bigint[];      -- attempts counted in each
ALTER TABLE rate_limit_counters ADD COLUMN IF NOT EXISTS window_ends    timestamptz[]; -- when each ends
