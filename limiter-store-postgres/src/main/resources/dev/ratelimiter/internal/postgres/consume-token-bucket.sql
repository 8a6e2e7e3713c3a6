-- A token bucket of one window and a positive cost (docs/stores.md#token-bucket-rows): its row holds the window's
-- theoretical arrival time (TAT) in ends_at, and the shape it was last decided under in token_intervals and
-- token_capacities. Sub-selects end in OFFSET 0, as consume-fixed-windows.sql says why. x reads the shape; s the
-- time owed until full (owed, microseconds, exact: extract gives a numeric) whatever that shape (a key keeps it when
-- its plan changes the bucket's limits), at most a full refill of the call's capacity and interval; a row of several
-- windows counts as full. o decides (fits: the rule of the migration's function, needed capped at the capacity + 1
-- so no product overflows) and, when allowed, the TAT moves on by the cost's intervals; a refusal leaves the TAT as
-- it was, but at most a full refill from now, so a row left by a larger or slower bucket refills from now as the
-- verdict says (docs/stores.md#counters-across-a-change-of-settings; a row of several windows: full now), and sets
-- denied, which RETURNING reads back. A first call that does not fit writes a full row, ends_at now, which the next
-- sweep deletes.
INSERT INTO ${table} AS c (bucket, key, ends_at, count, denied, token_intervals, token_capacities)
VALUES (:bucket, :key,
        CASE WHEN :cost::bigint <= :capacity::bigint
             THEN ${now} + LEAST(:cost::bigint, :capacity::bigint) * :interval::bigint * interval '1 microsecond'
             ELSE ${now} END,
        0, :cost::bigint > :capacity::bigint, ARRAY[:interval::bigint], ARRAY[:capacity::bigint])
ON CONFLICT (bucket, key) DO UPDATE SET
    (ends_at, denied, window_ends, token_intervals, token_capacities) = (
        SELECT CASE WHEN o.fits THEN o.now + (o.owed + o.cost * o.iv) * interval '1 microsecond'
                    WHEN o.same THEN LEAST(c.ends_at, o.now + o.owed * interval '1 microsecond')
                    ELSE o.now END,
               NOT o.fits, NULL::timestamptz[], EXCLUDED.token_intervals, EXCLUDED.token_capacities
        FROM (SELECT s.*, s.owed + LEAST(s.cost, s.cap + 1) * s.iv <= s.cap * s.iv AS fits
              FROM (SELECT x.*,
                           CASE WHEN x.same AND c.ends_at > x.now
                                THEN LEAST((extract(epoch FROM c.ends_at - x.now) * 1000000)::bigint, x.cap * x.iv)
                                ELSE 0 END AS owed
                    FROM (SELECT ${now} AS now, :cost::bigint AS cost, EXCLUDED.token_intervals[1] AS iv,
                                 EXCLUDED.token_capacities[1] AS cap,
                                 COALESCE(cardinality(c.token_intervals) = 1, false) AS same
                          OFFSET 0) AS x
                    OFFSET 0) AS s
              OFFSET 0) AS o)
RETURNING ends_at, denied, ${now}
