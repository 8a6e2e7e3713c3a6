-- The breaker's probe, one statement, so one round trip: the update needs the table's write privileges and a writable
-- session, and the columns of token buckets and sliding windows; the call needs the function and the right to
-- execute it (it decides nothing, reads no row).
WITH touched AS (UPDATE ${table} SET count = count, token_intervals = token_intervals, previous = previous
                 WHERE false RETURNING 1)
SELECT ${decide}(NULL, '{}'::varchar[], '{0}'::bigint[])
