-- Leases renewed (RateLimitStore#renew), by the rule of Permits.Leases#renew: one statement for any number of
-- permits, answering, per permit in the order sent, 1 if it was held with its lease not ended (its deadline after
-- now), its deadline then moved to now + its lease, else 0, and nothing is taken again: a lease that ended is not
-- renewed even while it is still in the row (the next take removes it). Rows are keyed 'cp:' || the hashed key
-- (permits-take.sql describes their columns); ends_at stays the latest deadline (a renewed deadline passes it or not).
-- Each step is a sub-select of its own:
--   p        one row per permit, with its position (i) and its bucket's lease in milliseconds;
--   locked   the rows of those keys, locked in (bucket, key) order, as every statement that locks several rows takes
--            them, so a renewal never waits in a circle with a give-back or another renewal (a take locks one row);
--            MATERIALIZED: the locks are taken by this sub-select, in its order, whatever plan follows. A row changed
--            since the statement began is read in its latest version (READ COMMITTED), so the renewal decides on the
--            permits as the last take or give-back left them;
--   held     the permits held with a deadline after now, read from the locked rows;
--   renewed  the update of the rows holding one: each of their held ids gets now + the lease (one lease per row: the
--            bucket's), the other leases are left as they are; it runs whether or not it is read.
-- The answer is one bigint[]: a 1 or 0 per permit, in order.
WITH p AS (SELECT u.bucket, u.key, u.id, u.lease, u.i
           FROM unnest(:buckets::varchar[], :keys::varchar[], :ids::bigint[], :leases::bigint[])
                WITH ORDINALITY AS u(bucket, key, id, lease, i)),
locked AS MATERIALIZED (SELECT c.bucket, c.key, c.window_counts, c.window_ends
                        FROM ${table} AS c WHERE (c.bucket, c.key) IN (SELECT bucket, key FROM p)
                        ORDER BY c.bucket COLLATE "C", c.key COLLATE "C" FOR UPDATE),
held AS (SELECT p.i, p.bucket, p.key, p.id, p.lease, x.now
         FROM (SELECT ${now} AS now OFFSET 0) AS x, p JOIN locked AS l ON l.bucket = p.bucket AND l.key = p.key
         WHERE EXISTS (SELECT 1 FROM unnest(l.window_counts, l.window_ends) AS e(id, deadline)
                       WHERE e.id = p.id AND e.deadline > x.now)),
renewed AS (UPDATE ${table} AS c SET
                window_ends = ARRAY(SELECT CASE WHEN e.deadline > h.now AND e.id = ANY (h.ids) THEN h.deadline
                                                ELSE e.deadline END
                                    FROM unnest(c.window_counts, c.window_ends) WITH ORDINALITY AS e(id, deadline, n)
                                    ORDER BY e.n),
                ends_at = GREATEST(c.ends_at, h.deadline)
            FROM (SELECT bucket, key, max(now) AS now, array_agg(id) AS ids,
                         max(now) + max(lease) * interval '1 millisecond' AS deadline
                  FROM held GROUP BY bucket, key) AS h
            WHERE c.bucket = h.bucket AND c.key = h.key)
SELECT COALESCE(array_agg(CASE WHEN h.i IS NULL THEN 0 ELSE 1 END ORDER BY p.i), '{}')
FROM p LEFT JOIN held AS h ON h.i = p.i
