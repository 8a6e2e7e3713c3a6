-- A check (cost 0) of a fixed window or a token bucket: one read that writes nothing, a row or none.
SELECT ${now}, c.count, c.ends_at, c.window_seconds, c.window_counts, c.window_ends, c.token_intervals,
       c.token_capacities
FROM (SELECT 1) AS one LEFT JOIN ${table} AS c ON c.bucket = :bucket AND c.key = :key
