-- A token bucket of one window and a positive cost (docs/stores.md#token-bucket-rows): its row holds the window's
-- theoretical arrival time (TAT) as ends_at minus count microseconds (count: how far ends_at lies past the TAT), and
-- the shape it was last decided under in token_intervals and token_capacities. ends_at is what the sweep's index
-- holds, and an update that changes an indexed column is never HOT: it adds entries to both indexes, which cost a
-- third of this statement when every allowed call moved ends_at (pg_stat_statements, 25 µs against 17 µs with HOT
-- updates). So an allowed call that moves the TAT past ends_at moves ends_at a slack further (a full refill, at most
-- a minute), and every other call keeps ends_at and writes count: a row goes at most that slack after it is full.
-- Sub-selects end in OFFSET 0, as consume-fixed-windows.sql says why. x reads the shape and e, the microseconds from
-- now to ends_at (exact: extract gives a numeric); s the time owed until full (owed) whatever that shape (a key keeps
-- it when its plan changes the bucket's limits), at most a full refill of the call's capacity and interval; a row of
-- several windows counts as full. o decides (fits: the rule of the migration's function, needed capped at the
-- capacity + 1 so no product overflows; written twice, in bigints) and gives the new TAT in microseconds from now
-- (tat): when allowed, moved on by the cost's intervals; a refusal leaves it as it was, but at most a full refill
-- from now, so a row left by a larger or slower bucket refills from now as the verdict says
-- (docs/stores.md#counters-across-a-change-of-settings; a row of several windows: full now), and sets denied, which
-- RETURNING reads back with the TAT. A first call that does not fit writes a full row, ends_at now, which the next
-- sweep deletes.
INSERT INTO ${table} AS c (bucket, key, ends_at, count, denied, token_intervals, token_capacities)
VALUES (:bucket, :key,
        CASE WHEN :cost::bigint <= :capacity::bigint
             THEN ${now} + LEAST(:cost::bigint, :capacity::bigint) * :interval::bigint * interval '1 microsecond'
             ELSE ${now} END,
        0, :cost::bigint > :capacity::bigint, ARRAY[:interval::bigint], ARRAY[:capacity::bigint])
ON CONFLICT (bucket, key) DO UPDATE SET
    (ends_at, count, denied, window_ends, token_intervals, token_capacities) = (
        SELECT CASE WHEN o.tat <= o.e THEN c.ends_at
                    WHEN o.fits THEN o.now + (o.tat + o.slack) * interval '1 microsecond'
                    ELSE o.now + o.tat * interval '1 microsecond' END,
               CASE WHEN o.tat <= o.e THEN o.e - o.tat WHEN o.fits THEN o.slack ELSE 0 END,
               NOT o.fits, NULL::timestamptz[], EXCLUDED.token_intervals, EXCLUDED.token_capacities
        FROM (SELECT s.*, s.owed + LEAST(s.cost, s.cap + 1) * s.iv <= s.cap * s.iv AS fits,
                     CASE WHEN s.owed + LEAST(s.cost, s.cap + 1) * s.iv <= s.cap * s.iv THEN s.owed + s.cost * s.iv
                          WHEN s.same THEN LEAST(s.e - c.count, s.owed)
                          ELSE 0 END AS tat,
                     LEAST(s.cap * s.iv, 60000000) AS slack
              FROM (SELECT x.*,
                           CASE WHEN x.same AND x.e - c.count > 0 THEN LEAST(x.e - c.count, x.cap * x.iv)
                                ELSE 0 END AS owed
                    FROM (SELECT ${now} AS now, :cost::bigint AS cost, EXCLUDED.token_intervals[1] AS iv,
                                 EXCLUDED.token_capacities[1] AS cap,
                                 COALESCE(cardinality(c.token_intervals) = 1, false) AS same,
                                 (extract(epoch FROM c.ends_at - ${now}) * 1000000)::bigint AS e
                          OFFSET 0) AS x
                    OFFSET 0) AS s
              OFFSET 0) AS o)
RETURNING ends_at - count * interval '1 microsecond', denied, ${now}
