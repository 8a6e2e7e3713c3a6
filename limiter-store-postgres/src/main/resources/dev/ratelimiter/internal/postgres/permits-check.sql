-- A check of a concurrency bucket (a take of StorePermit.CHECK, a quota read): one read that locks and writes
-- nothing. The permits held are the row's leases whose deadline is after now (none without a row), and it is allowed
-- iff a take would be: fewer than the limit held. Leases that ended are left in the row for the next take to remove
-- and count (permits-take.sql), so each is counted as ended once; the check answers 0 of them.
SELECT count(*) < :limit::bigint, count(*)
FROM ${table} AS c, unnest(c.window_ends) AS e(deadline)
WHERE c.bucket = :bucket AND c.key = :key AND e.deadline > ${now}
