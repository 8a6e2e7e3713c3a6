-- Permits given back (RateLimitStore#giveBack), by the rule of Permits.Leases#giveBack: one UPDATE for any number of
-- them, each id removed, with its deadline, from its key's row ('cp:' || the hashed key; permits-take.sql describes
-- its columns). Idempotent: an id not held (given back before, its lease ended and removed, never taken) removes
-- nothing, and a row that holds none of its ids is neither locked nor written. Leases that ended stay for the next
-- take to remove and count, as in memory. count becomes the permits left and ends_at the latest deadline left, or now
-- when none is left, so the sweep deletes the row; till then a key's next take updates it rather than inserting.
--   g       one row per key given back, with its ids (a permit given back twice in one call is removed once);
--   locked  the rows that hold one of them, locked in (bucket, key) order, as every statement that locks several rows
--           takes them, so a give-back never waits in a circle with another give-back or a renewal (a take locks one
--           row); MATERIALIZED: the locks are taken by this sub-select, in its order, whatever plan the update gets.
--           A row changed since the statement began is read again in its latest version, locked, and so is the
--           update's row (READ COMMITTED): the ids are removed from the permits as the last take left them, and a
--           take waiting for the row decides on what the give-back left.
WITH g AS (SELECT u.bucket, u.key, array_agg(u.id) AS ids
           FROM unnest(:buckets::varchar[], :keys::varchar[], :ids::bigint[]) AS u(bucket, key, id)
           GROUP BY u.bucket, u.key),
locked AS MATERIALIZED (SELECT c.bucket, c.key, g.ids
                        FROM g JOIN ${table} AS c ON c.bucket = g.bucket AND c.key = g.key
                        WHERE c.window_counts && g.ids
                        ORDER BY c.bucket COLLATE "C", c.key COLLATE "C" FOR UPDATE OF c)
UPDATE ${table} AS c SET (window_counts, window_ends, count, ends_at) = (
        SELECT COALESCE(array_agg(e.id), '{}'), COALESCE(array_agg(e.deadline), '{}'), count(*),
               COALESCE(max(e.deadline), ${now})
        FROM unnest(c.window_counts, c.window_ends) AS e(id, deadline)
        WHERE e.id <> ALL (k.ids))
FROM locked AS k
WHERE c.bucket = k.bucket AND c.key = k.key
