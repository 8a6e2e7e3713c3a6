-- Jakarta Rate Limiter: several buckets of one call decided in one statement
-- (docs/guide.md#several-limits-on-one-method). Applied after V2, by Flyway from the same location and history
-- table, or by hand (psql -f V1__..., V2__..., then this file). It adds one function beside the table and changes no
-- row, so the previous version keeps running against it during a rolling upgrade.
--
-- The function is named after the table (<table>_consume) and keeps the search_path it was created with, so it
-- finds its table whatever the caller's search_path; the library calls it in the schema ratelimiter.postgres.table
-- names, or through the search_path for an unqualified table. For a table of another name, replace
-- rate_limit_counters in V1, V2 and this file alike.
--
-- rate_limit_counters_consume(instant, buckets, keys, costs, sizes, seconds, limits) decides items 1..n in that
-- order and stops after the first refusal, with the rules of the one-item statements:
--   instant        the instant of the decision; NULL for the database's statement_timestamp()
--   buckets, keys  item i's bucket name and hashed key
--   costs          item i's cost: 0 checks without counting (allowed iff a cost of 1 would be)
--   sizes          how many windows item i's bucket has; their lengths in seconds and their limits are the next
--                  sizes[i] elements of seconds and limits, items in order
-- It returns the decided items' numbers in one array, item after item, up to and including the first refusal: per
-- item 1 if allowed else 0, then per window its count and the milliseconds left until it ends (a window not open:
-- count 0 and its whole length).
--
-- Why a function: a refusal must leave the later items uncounted, and one INSERT ... ON CONFLICT over several rows
-- decides each row on its own. Why no deadlock: before deciding, one statement locks every row of the call
-- (creating the missing ones as ended windows) in (bucket, key) order, each row once, and the one-item statements
-- lock a single row; locks are always taken in one order, so no two calls wait for each other. The statements are
-- static, so PostgreSQL plans them once per session.

CREATE OR REPLACE FUNCTION rate_limit_counters_consume(instant timestamptz, buckets varchar[], keys varchar[],
                                                       costs bigint[], sizes integer[], seconds bigint[],
                                                       limits bigint[])
    RETURNS bigint[]
    LANGUAGE plpgsql VOLATILE
    SET search_path FROM CURRENT
AS $function$
DECLARE
    t timestamptz := COALESCE(instant, statement_timestamp());
    next_window integer := 1;     -- item i's first window in seconds and limits
    size integer;                 -- item i's windows
    item_seconds bigint[];
    item_limits bigint[];
    stored_count bigint;
    stored_end timestamptz;
    stored_seconds bigint[];
    stored_counts bigint[];
    stored_ends timestamptz[];
    counts bigint[];
    ends timestamptz[];
    fits boolean;
    answer bigint[] := '{}';
BEGIN
    -- The no-op update locks the rows that exist, in the same ordered pass that creates the missing ones. denied is
    -- the one-item statement's own (it sets it and reads it back in one statement): the function leaves it alone.
    INSERT INTO rate_limit_counters AS c (bucket, key, ends_at, count)
        SELECT u.b, u.k, t, 0 FROM unnest(buckets, keys) AS u(b, k) GROUP BY u.b, u.k ORDER BY u.b, u.k
        ON CONFLICT (bucket, key) DO UPDATE SET denied = c.denied;
    FOR i IN 1 .. cardinality(buckets) LOOP
        size := sizes[i];
        item_seconds := seconds[next_window : next_window + size - 1];
        item_limits := limits[next_window : next_window + size - 1];
        next_window := next_window + size;
        SELECT c.count, c.ends_at, c.window_seconds, c.window_counts, c.window_ends
            INTO stored_count, stored_end, stored_seconds, stored_counts, stored_ends
            FROM rate_limit_counters AS c WHERE c.bucket = buckets[i] AND c.key = keys[i];
        -- The open windows' counts; a window ended, never opened, or counted under other windows (the bucket's
        -- configuration changed) counts nothing and has no end yet.
        counts := array_fill(0::bigint, ARRAY[size]);
        ends := array_fill(NULL::timestamptz, ARRAY[size]);
        IF size = 1 AND stored_seconds IS NULL AND stored_end > t THEN
            counts[1] := stored_count;
            ends[1] := stored_end;
        ELSIF size > 1 AND stored_seconds = item_seconds THEN
            FOR w IN 1 .. size LOOP
                IF stored_ends[w] > t THEN
                    counts[w] := stored_counts[w];
                    ends[w] := stored_ends[w];
                END IF;
            END LOOP;
        END IF;
        fits := true;
        FOR w IN 1 .. size LOOP
            fits := fits AND counts[w] + GREATEST(costs[i], 1) <= item_limits[w];
        END LOOP;
        IF costs[i] > 0 AND fits THEN
            FOR w IN 1 .. size LOOP
                counts[w] := counts[w] + costs[i];
                ends[w] := COALESCE(ends[w], t + item_seconds[w] * interval '1 second');
            END LOOP;
            IF size = 1 THEN
                UPDATE rate_limit_counters AS c SET count = counts[1], ends_at = ends[1], window_seconds = NULL,
                        window_counts = NULL, window_ends = NULL
                    WHERE c.bucket = buckets[i] AND c.key = keys[i];
            ELSE
                -- As the one-item statement keeps such a row: count is the first window's, ends_at the last end.
                UPDATE rate_limit_counters AS c SET count = counts[1],
                        ends_at = (SELECT max(e) FROM unnest(ends) AS e), window_seconds = item_seconds,
                        window_counts = counts, window_ends = ends
                    WHERE c.bucket = buckets[i] AND c.key = keys[i];
            END IF;
        END IF;
        answer := answer || CASE WHEN fits THEN 1::bigint ELSE 0::bigint END;
        FOR w IN 1 .. size LOOP
            answer := answer || counts[w] || COALESCE(floor(extract(epoch FROM ends[w] - t) * 1000)::bigint,
                                                       item_seconds[w] * 1000);
        END LOOP;
        IF NOT fits THEN
            RETURN answer; -- later items are neither decided nor counted
        END IF;
    END LOOP;
    RETURN answer;
END
$function$;
