-- A sliding window of one window and a positive cost (docs/stores.md#sliding-window-rows), decided as the migration's
-- function decides it, to the millisecond and in the same doubles, but as one plain upsert, as a fixed window's is:
-- a call of PL/pgSQL per decision costs more than the decision. Sub-selects end in OFFSET 0, as
-- consume-fixed-windows.sql says why: without them this statement's instant was copied some 60 times into its plan,
-- at half the fixed window's rate (BENCHMARKS.md); and each level passes on only what the next reads, since every
-- column and expression of a level is built again at each execution too (passing every column on, and a flag for a
-- row of one window, cost about 10 % of the statement's server time). x reads the row as of now (the instant
-- truncated to the millisecond, and when its current window ends: null for a row that is not of one window, which
-- every comparison below then takes as no window; the window's length is read back from the row proposed, EXCLUDED,
-- since each parameter bound costs the client); s rolls it (the current count, the previous count and the current
-- window's end: the row's own window, at most this window's length from now, since a row kept under a longer window
-- of the bucket's name keeps its counts in a window brought within this one,
-- docs/stores.md#counters-across-a-change-of-settings; the one it ended into; or a new one); d decides, the previous
-- count weighed by the part of the window still to run, which is never more than the window. Allowed, the cost is
-- counted; refused, the row is written rolled as it was read (the same state) with denied, which RETURNING reads
-- back, as a fixed window's refusal is, with the milliseconds from now to ends_at as one number (no timestamp for
-- the client to parse; date_part gives a double, which holds such an interval's seconds closely enough that
-- rounding to the millisecond is exact, and costs less than extract's numeric); a refused call that finds nothing to
-- weigh leaves a row ending now, which counts as no state and the next sweep deletes, so no window opens at a
-- refusal.
INSERT INTO ${table} AS c (bucket, key, ends_at, count, previous, length_seconds, denied)
VALUES (:bucket, :key,
        date_trunc('milliseconds', ${now}) + CASE WHEN :cost::bigint <= :limit::bigint
                                                  THEN 2 * :window::bigint * interval '1 second'
                                                  ELSE interval '0' END,
        CASE WHEN :cost::bigint <= :limit::bigint THEN :cost::bigint ELSE 0 END, 0, :window::bigint,
        :cost::bigint > :limit::bigint)
ON CONFLICT (bucket, key) DO UPDATE SET
    (count, previous, ends_at, length_seconds, denied, window_seconds, window_counts, window_ends, window_previous) = (
        SELECT CASE WHEN d.fits THEN d.cur + :cost::bigint ELSE d.cur END, d.prev,
               CASE WHEN d.fits OR d.cur > 0 OR d.prev > 0 THEN d.window_end + d.span ELSE d.now END,
               EXCLUDED.length_seconds, NOT d.fits,
               NULL::bigint[], NULL::bigint[], NULL::timestamptz[], NULL::bigint[]
        FROM (SELECT s.now, s.span, s.cur, s.prev, s.window_end,
                     s.prev::float8 * (date_part('epoch', (s.window_end - s.now)) * 1000)::bigint::float8
                         / (EXCLUDED.length_seconds * 1000)::float8
                         <= (:limit::bigint - s.cur - :cost::bigint)::float8 AS fits
              FROM (SELECT x.now, x.span,
                           CASE WHEN x.current_end > x.now THEN c.count ELSE 0 END AS cur,
                           CASE WHEN x.current_end > x.now THEN c.previous
                                WHEN x.current_end + x.span > x.now AND c.count > 0 THEN c.count
                                ELSE 0 END AS prev,
                           CASE WHEN x.current_end > x.now THEN LEAST(x.current_end, x.now + x.span)
                                WHEN x.current_end + x.span > x.now AND c.count > 0 THEN x.current_end + x.span
                                ELSE x.now + x.span END AS window_end
                    FROM (SELECT date_trunc('milliseconds', ${now}) AS now,
                                 EXCLUDED.length_seconds * interval '1 second' AS span,
                                 c.ends_at - c.length_seconds * interval '1 second' AS current_end
                          OFFSET 0) AS x
                    OFFSET 0) AS s
              OFFSET 0) AS d)
RETURNING count, previous, denied, (date_part('epoch', (ends_at - date_trunc('milliseconds', ${now}))) * 1000)::bigint
