-- A permit of a concurrency bucket taken (RateLimitStore#take, docs/stores.md#permits), by the rule of
-- Permits.Leases#take on the database's instant: one upsert, as a fixed window's, so no read before the write, no
-- explicit transaction, no advisory lock. The key's permits are one row keyed 'cp:' || the hashed key (a hashed key
-- has no ':', as the token bucket's 'tb:' and the sliding window's 'sw:' rows say), whose columns the migration's
-- other algorithms use are reused: window_counts holds the permits' ids and window_ends their deadlines, in the same
-- order; count the permits held; ends_at the latest deadline, so the sweep (ends_at <= now) deletes the row once
-- every lease has ended; denied whether this take was refused and previous the leases it found ended and removed,
-- both read back by RETURNING, which shows the new row only.
--
-- Exactness: the first take of a key inserts the row; every other take, on any replica, meets it in ON CONFLICT, which
-- locks it and reads its latest version (READ COMMITTED), so the takes of one key are decided one after another, each
-- on the permits the one before left: never one permit more than the limit. Two first takes never fail with a unique
-- violation: the second meets the first's row. A row deleted meanwhile (a reset, the sweep) has the insert tried again.
--
-- Steps, each a sub-select ending in OFFSET 0 (consume-fixed-windows.sql says why):
--   x  the instant, the new deadline (now + the lease), the id and the limit, built once;
--   k  each of the row's leases, of one kind: 0 its deadline has come (at or before now), 1 the id's own, live, 2
--      another live one;
--   l  the leases of kind 0 are dropped and counted (expired); whether the id is held (kind 1); the others (kind 2):
--      their ids and deadlines (aligned, since both aggregates read the leases in one pass), the latest deadline and
--      their number;
--   d  the decision: allowed if the id is held (a take sent twice holds one permit: its deadline is renewed) or fewer
--      than the limit are held (a limit lowered by a reload leaves more held until they end).
-- Allowed, the id goes last with the new deadline; refused, the row keeps the leases not ended. A first take is always
-- allowed (a limit is at least 1). A check (StorePermit.CHECK) takes nothing and writes nothing: permits-check.sql.
INSERT INTO ${table} AS c (bucket, key, ends_at, count, denied, window_counts, window_ends, previous)
VALUES (:bucket, :key, ${now} + :lease::bigint * interval '1 millisecond', 1, false, ARRAY[:id::bigint],
        ARRAY[${now} + :lease::bigint * interval '1 millisecond'], 0)
ON CONFLICT (bucket, key) DO UPDATE SET
    (ends_at, count, denied, window_counts, window_ends, previous) = (
        SELECT CASE WHEN d.allowed THEN GREATEST(d.latest, d.deadline) ELSE COALESCE(d.latest, d.now) END,
               CASE WHEN d.allowed THEN d.others + 1 ELSE d.others END,
               NOT d.allowed,
               CASE WHEN d.allowed THEN d.ids || d.id ELSE d.ids END,
               CASE WHEN d.allowed THEN d.ends || d.deadline ELSE d.ends END,
               d.expired
        FROM (SELECT x.now, x.deadline, x.id, l.expired, l.others, l.latest,
                     COALESCE(l.ids, '{}') AS ids, COALESCE(l.ends, '{}') AS ends,
                     l.held OR l.others < x.permits AS allowed
              FROM (SELECT ${now} AS now, ${now} + :lease::bigint * interval '1 millisecond' AS deadline,
                           :id::bigint AS id, :limit::bigint AS permits
                    OFFSET 0) AS x,
                   LATERAL (SELECT count(*) FILTER (WHERE k.kind = 0) AS expired,
                                   count(*) FILTER (WHERE k.kind = 1) > 0 AS held,
                                   count(*) FILTER (WHERE k.kind = 2) AS others,
                                   max(k.deadline) FILTER (WHERE k.kind = 2) AS latest,
                                   array_agg(k.id) FILTER (WHERE k.kind = 2) AS ids,
                                   array_agg(k.deadline) FILTER (WHERE k.kind = 2) AS ends
                            FROM (SELECT e.id, e.deadline,
                                         CASE WHEN e.deadline <= x.now THEN 0 WHEN e.id = x.id THEN 1 ELSE 2 END
                                             AS kind
                                  FROM unnest(c.window_counts, c.window_ends) AS e(id, deadline)
                                  OFFSET 0) AS k) AS l
              OFFSET 0) AS d)
RETURNING denied, count, previous
