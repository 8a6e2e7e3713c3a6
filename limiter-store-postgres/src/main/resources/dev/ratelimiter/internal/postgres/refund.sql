-- Refunds (docs/stores.md#refunds): one UPDATE for any number of them, a plain statement as the one-window upserts
-- are, so no migration adds a function for it. Algorithms are numbered as the migration's function numbers them
-- (1 token bucket, 2 sliding window; a reserving token bucket adds 4 times the microseconds it may owe beyond empty,
-- its max-wait, up to which a debit may raise what is owed). Each step is a sub-select of its own:
--   p         the instant and the windows' numbers;
--   r         one row per refund, with its bucket's windows sliced out of them;
--   locked    the rows refunded, locked in (bucket, key) order as every statement that locks several rows takes
--             them, so a refund never waits in a circle with the function or another refund; MATERIALIZED: the
--             locks are taken by this sub-select, in its order, whatever plan the update gets;
--   windows   each window of each refund beside the row's window of the same index: whether the row was kept under
--             the refund's windows (as the decisions read it), when that window ends, and the instant to compare it
--             with (a sliding window's is truncated to the millisecond, as its decisions' is);
--   credits   per window, the costs of the refunds whose window is the row's open one (StoreRefund#sameWindow),
--             summed, so a row refunded twice in one statement gets both; a token bucket's window has no end to
--             name: any time owed is the call's to give back, and a debit (a negative cost) is taken from a full
--             bucket too;
--   refunded  the rows with something to give back, their credits window by window;
--   changed   the row's new counts (a negative credit, a debit, raises one), or a token bucket's new times until
--             full (a debit's time added to what is owed from now, up to a full refill: TokenBuckets.debited). One window's count or time until full
--             sits in a scalar (a token bucket's TAT: ends_at minus count microseconds, written back as ends_at with
--             count 0), several in an array: both read as an array here. A cost is capped at the capacity + 1
--             before it is multiplied, as the decisions cap it: no overflow, and still enough to fill the bucket.
-- The update writes those and nothing else: no row is inserted, no window's end moves, a sliding window's previous
-- is never read.
WITH p AS (SELECT ${now} AS now, :lengths::bigint[] AS lengths, :capacities::bigint[] AS capacities,
                  :ends::bigint[] AS ends),
r AS (SELECT u.bucket, u.key, u.algorithm % 4 AS algorithm, u.algorithm / 4 AS ahead, u.cost, u.size, p.now,
             p.lengths[u.first : u.first + u.size - 1] AS lengths,
             p.capacities[u.first : u.first + u.size - 1] AS capacities,
             p.ends[u.first : u.first + u.size - 1] AS ends
      FROM p, unnest(:buckets::varchar[], :keys::varchar[], :algorithms::bigint[], :costs::bigint[],
                     :firsts::integer[], :sizes::integer[]) AS u(bucket, key, algorithm, cost, first, size)),
locked AS MATERIALIZED (SELECT c.bucket, c.key, c.count, c.ends_at, c.window_seconds, c.window_counts, c.window_ends,
                               c.length_seconds, c.window_previous, c.token_intervals, c.token_capacities
                        FROM ${table} AS c WHERE (c.bucket, c.key) IN (SELECT bucket, key FROM r)
                        ORDER BY c.bucket COLLATE "C", c.key COLLATE "C" FOR UPDATE),
windows AS (SELECT l.bucket, l.key, g.w, r.cost, r.ahead, r.algorithm = 1 AS tokens, r.ends[g.w] AS ends_in,
                   r.lengths[g.w] AS length,
                   CASE WHEN r.algorithm = 2 THEN date_trunc('milliseconds', r.now) ELSE r.now END AS at,
                   CASE WHEN r.size > 1 THEN l.window_ends[g.w]
                        WHEN r.algorithm = 2 THEN l.ends_at - r.lengths[1] * interval '1 second'
                        ELSE l.ends_at END AS end_at,
                   COALESCE(CASE WHEN r.algorithm = 1 THEN cardinality(l.token_intervals) = r.size
                                 WHEN r.algorithm = 2 AND r.size = 1 THEN l.length_seconds = r.lengths[1]
                                 WHEN r.algorithm = 2 THEN l.window_seconds = r.lengths
                                                           AND l.window_previous IS NOT NULL
                                 WHEN r.size = 1 THEN l.window_seconds IS NULL
                                 ELSE l.window_seconds = r.lengths END, false) AS same
            FROM locked AS l JOIN r ON r.bucket = l.bucket AND r.key = l.key
                 CROSS JOIN LATERAL generate_series(1, r.size) AS g(w)),
credits AS (SELECT bucket, key, w, bool_or(tokens) AS tokens, max(ahead) AS ahead,
                   sum(cost) FILTER (WHERE same AND (end_at > at OR tokens AND cost < 0)
                                     AND (tokens OR ends_in > 0
                                          AND end_at - at < (ends_in + length * 500) * interval '1 millisecond'))
                       AS credit
            FROM windows GROUP BY bucket, key, w),
refunded AS (SELECT bucket, key, bool_or(tokens) AS tokens, max(ahead) AS ahead,
                    array_agg(credit ORDER BY w) AS credits
             FROM credits GROUP BY bucket, key HAVING count(credit) > 0),
changed AS (SELECT l.bucket, l.key,
                   CASE WHEN k.tokens THEN 0 ELSE n.counts[1] END AS count,
                   CASE WHEN k.tokens OR l.window_counts IS NULL THEN l.window_counts ELSE n.counts END
                       AS window_counts,
                   CASE WHEN k.tokens THEN (SELECT max(e) FROM unnest(n.tats) AS e) ELSE l.ends_at END AS ends_at,
                   CASE WHEN k.tokens AND l.window_ends IS NOT NULL THEN n.tats ELSE l.window_ends END AS window_ends
            FROM locked AS l JOIN refunded AS k ON k.bucket = l.bucket AND k.key = l.key CROSS JOIN p
                 CROSS JOIN LATERAL (
                     SELECT ARRAY(SELECT (s.n - LEAST(COALESCE(k.credits[s.w], 0), s.n))::bigint
                                  FROM unnest(COALESCE(l.window_counts, ARRAY[l.count])) WITH ORDINALITY AS s(n, w)
                                  ORDER BY s.w) AS counts,
                            ARRAY(SELECT CASE WHEN k.credits[s.w] IS NULL THEN s.e
                                              WHEN k.credits[s.w] < 0
                                                  THEN LEAST(GREATEST(s.e, p.now)
                                                                 - GREATEST(k.credits[s.w],
                                                                            -l.token_capacities[s.w] - 1)::bigint
                                                                   * l.token_intervals[s.w]
                                                                   * interval '1 microsecond',
                                                             p.now + (l.token_capacities[s.w]
                                                                      * l.token_intervals[s.w] + k.ahead)
                                                                     * interval '1 microsecond')
                                              ELSE GREATEST(s.e - LEAST(k.credits[s.w],
                                                                        l.token_capacities[s.w] + 1)::bigint
                                                                  * l.token_intervals[s.w] * interval '1 microsecond',
                                                            p.now) END
                                  FROM unnest(COALESCE(l.window_ends,
                                                       ARRAY[l.ends_at - l.count * interval '1 microsecond']))
                                       WITH ORDINALITY AS s(e, w)
                                  ORDER BY s.w) AS tats) AS n)
UPDATE ${table} AS c SET count = x.count, window_counts = x.window_counts, ends_at = x.ends_at,
                         window_ends = x.window_ends
FROM changed AS x WHERE c.bucket = x.bucket AND c.key = x.key
