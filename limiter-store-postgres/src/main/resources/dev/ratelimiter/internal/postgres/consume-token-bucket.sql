-- A token bucket of one window and a positive cost (docs/stores.md#token-bucket-rows): its row holds the window's
-- theoretical arrival time (TAT) as ends_at minus count microseconds (count: how far ends_at lies past the TAT), and
-- the shape it was last decided under in token_intervals and token_capacities. ends_at is what the sweep's index
-- holds, and an update that changes an indexed column is never HOT: it adds entries to both indexes, which cost a
-- third of this statement when every allowed call moved ends_at (pg_stat_statements, 25 µs against 17 µs with HOT
-- updates). So an allowed call that moves the TAT past ends_at moves ends_at a slack further (a full refill, at most
-- a minute), and every other call keeps ends_at and writes count: a row goes at most that slack after it is full,
-- but for a refusal that brings a time owed of more than a full refill (a larger or slower bucket's) back within one,
-- which keeps the end that bucket set.
--
-- PostgreSQL builds every expression of a statement again at each execution, and under load that building, not the
-- arithmetic, is what this statement costs beyond the fixed window's. So it builds few: it decides on instants (timestamptz is whole microseconds, so
-- comparing instants is exact, and n * interval '1 microsecond' is exact below 2^53), the client works out what
-- depends only on the call (CounterParameters, as doubles, so no cast is built, and the migration's function works
-- them out alike: keep the two in step; :token_step the cost's refill, 0
-- when the cost exceeds the capacity; :token_room what may be owed for the cost to fit; :token_full a full refill;
-- :token_slack), only the three columns the decision sets come from the sub-select, and RETURNING hands the client
-- ends_at and count rather than the TAT they make (CounterRows). Sub-selects end in OFFSET 0, as
-- consume-fixed-windows.sql says why: an added level costs less than a copied expression. x reads the TAT (a row of
-- several windows, or of none, counts as full: its TAT is now); y decides: the cost fits when the TAT lies at most
-- :token_room past now, the rule of the migration's function (owed + cost * interval <= capacity * interval, owed =
-- max(TAT - now, 0) capped at a full refill, as a key keeps its state when its plan changes the bucket's limits); o
-- gives the new TAT: allowed, max(TAT, now) moved on by the cost's refill; refused, as it was, but at most a full
-- refill from now, so a row left by a larger or slower bucket refills from now as the verdict says
-- (docs/stores.md#counters-across-a-change-of-settings). The update keeps ends_at while the new TAT does not pass
-- it (count: the microseconds between them; date_part gives seconds as a double, which rounds back to the exact microseconds while they stay below about 2^48,
-- some 9 years, far beyond a bucket's longest window and the slack), else
-- ends_at is the TAT plus the slack when allowed, the TAT itself when refused; it sets denied, which RETURNING reads
-- back. A first call that does not fit writes a full row, ends_at now, which the next sweep deletes.
INSERT INTO ${table} AS c (bucket, key, ends_at, count, denied, token_intervals, token_capacities)
VALUES (:bucket, :key, ${now} + :token_step::float8 * interval '1 microsecond', 0,
        :cost::bigint > :capacity::bigint, ARRAY[:interval::bigint], ARRAY[:capacity::bigint])
ON CONFLICT (bucket, key) DO UPDATE SET
    (ends_at, count, denied) = (
        SELECT CASE WHEN o.tat <= c.ends_at THEN c.ends_at
                    WHEN o.fits THEN o.tat + :token_slack::float8 * interval '1 microsecond'
                    ELSE o.tat END,
               CASE WHEN o.tat <= c.ends_at THEN (date_part('epoch', c.ends_at - o.tat) * 1000000)::bigint
                    WHEN o.fits THEN :token_slack::bigint
                    ELSE 0 END,
               NOT o.fits
        FROM (SELECT y.fits,
                     CASE WHEN y.fits THEN GREATEST(y.tat, y.now) + :token_step::float8 * interval '1 microsecond'
                          ELSE LEAST(y.tat, y.now + :token_full::float8 * interval '1 microsecond') END AS tat
              FROM (SELECT x.now, x.tat,
                           :cost::bigint <= :capacity::bigint
                           AND x.tat <= x.now + :token_room::float8 * interval '1 microsecond' AS fits
                    FROM (SELECT ${now} AS now,
                                 CASE WHEN cardinality(c.token_intervals) = 1
                                      THEN c.ends_at - c.count * interval '1 microsecond' ELSE ${now} END AS tat
                          OFFSET 0) AS x
                    OFFSET 0) AS y
              OFFSET 0) AS o),
    window_ends = NULL, token_intervals = EXCLUDED.token_intervals, token_capacities = EXCLUDED.token_capacities
RETURNING ends_at, denied, ${now}, count
