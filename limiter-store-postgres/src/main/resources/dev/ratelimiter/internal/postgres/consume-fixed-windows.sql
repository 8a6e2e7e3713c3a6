-- A fixed window of several windows and a positive cost, in the row's arrays. The statement counts the cost in every
-- window only when all of them have room for it, else it changes no count and sets denied. Each sub-select ends in
-- OFFSET 0 so that the planner keeps it as a level of its own: pulled up, each name a level defines would be copied,
-- whole, into every expression that uses it, and PostgreSQL builds a statement's expressions again at every
-- execution (CounterStatementsPlanTest). p holds the call's values and decides once over all limits (ok: the cost
-- fits the smallest); the sub-select of the update reads each window of the old row by its length (an ended window,
-- a window of a length the row does not hold, or every window of a row of one window, as not open: count 0;
-- docs/stores.md#counters-across-a-change-of-settings), decides over all of them (d.ok), and writes each window:
-- counted and opened if needed when allowed; when refused, as it was, an ended window kept ended (its end set to
-- now, so no window opens at a refused call).
INSERT INTO ${table} AS c (bucket, key, ends_at, count, denied, window_seconds, window_counts, window_ends)
SELECT p.bucket, p.key,
       CASE WHEN p.ok THEN p.now + (SELECT max(x) FROM unnest(p.seconds) AS x) * interval '1 second' ELSE p.now END,
       CASE WHEN p.ok THEN p.cost ELSE 0 END, NOT p.ok, p.seconds,
       ARRAY(SELECT CASE WHEN p.ok THEN p.cost ELSE 0 END FROM unnest(p.seconds)),
       ARRAY(SELECT CASE WHEN p.ok THEN p.now + x * interval '1 second' ELSE p.now END
             FROM unnest(p.seconds) WITH ORDINALITY AS e(x, i) ORDER BY i)
FROM (SELECT :bucket::varchar AS bucket, :key::varchar AS key, ${now} AS now, :seconds::bigint[] AS seconds,
             :cost::bigint AS cost, :cost::bigint <= (SELECT min(l) FROM unnest(:limits::bigint[]) AS l) AS ok
      OFFSET 0) AS p
ON CONFLICT (bucket, key) DO UPDATE SET
    (ends_at, count, denied, window_seconds, window_counts, window_ends) = (
        SELECT max(CASE WHEN d.ok THEN d.opened_end WHEN d.open THEN d.old_end ELSE ${now} END),
               (array_agg(CASE WHEN d.ok THEN d.count + :cost ELSE d.count END ORDER BY d.i))[1],
               NOT bool_and(d.ok),
               EXCLUDED.window_seconds,
               array_agg(CASE WHEN d.ok THEN d.count + :cost ELSE d.count END ORDER BY d.i),
               array_agg(CASE WHEN d.ok THEN d.opened_end WHEN d.open THEN d.old_end ELSE ${now} END ORDER BY d.i)
        FROM (SELECT w.*, bool_and(w.count + GREATEST(:cost, 1) <= w.lim) OVER () AS ok
              FROM (SELECT u.i, u.lim, u.old_end,
                           COALESCE(u.open, false) AS open,
                           CASE WHEN u.open THEN u.old_count ELSE 0 END AS count,
                           CASE WHEN u.open THEN u.old_end ELSE ${now} + u.sec * interval '1 second' END AS opened_end
                    FROM (SELECT s.i, s.sec, s.lim, c.window_counts[s.j] AS old_count,
                                 c.window_ends[s.j] AS old_end, c.window_ends[s.j] > ${now} AS open
                          FROM (SELECT e.*, array_position(c.window_seconds, e.sec) AS j
                                FROM unnest(EXCLUDED.window_seconds, :limits::bigint[])
                                     WITH ORDINALITY AS e(sec, lim, i)
                                OFFSET 0) AS s
                          OFFSET 0) AS u
                    OFFSET 0) AS w) AS d)
RETURNING count, ends_at, denied, ${now}, window_counts, window_ends
