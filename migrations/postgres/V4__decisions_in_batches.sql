-- Jakarta Rate Limiter: the decisions waiting for the database decided in one statement (docs/stores.md#batching).
-- Applied after V3, by Flyway from the same location and history table, or by hand (psql -f V1__..., V2__...,
-- V3__..., then this file). It adds one function beside the table and changes no row, so the previous version keeps
-- running against it during a rolling upgrade. For a table of another name, replace rate_limit_counters in every
-- file alike.
--
-- rate_limit_counters_consume_each(instant, calls, buckets, keys, costs, sizes, seconds, limits) decides several
-- independent calls: call j is the next calls[j] items, each item as in V3's rate_limit_counters_consume, and each
-- call stops after its own first refusal (the later items of that call are neither decided nor counted; the next call
-- is decided all the same). Two calls may name the same row: they are decided in their order, the second seeing the
-- first's count. It returns, call after call, the count of numbers that follow for the call, then those numbers:
-- per decided item 1 if allowed else 0, then per window its count and the milliseconds left until it ends (a window
-- not open: count 0 and its whole length).
--
-- Why no deadlock: before deciding, one statement locks every row of every call, creating the missing ones as ended
-- windows, in (bucket, key) order, each row once, as V3's function does; the one-item statements lock a single row
-- and the sweep skips locked rows, so no two statements wait for each other. Unlike V3, an existing row is locked
-- without being written (ON CONFLICT DO UPDATE ... WHERE false locks the row and updates nothing), so a decision
-- writes each row once. The statements are static, so PostgreSQL plans them once per session.

CREATE OR REPLACE FUNCTION rate_limit_counters_consume_each(instant timestamptz, calls integer[], buckets varchar[],
                                                            keys varchar[], costs bigint[], sizes integer[],
                                                            seconds bigint[], limits bigint[])
    RETURNS bigint[]
    LANGUAGE plpgsql VOLATILE
    SET search_path FROM CURRENT
AS $function$
DECLARE
    t timestamptz := COALESCE(instant, statement_timestamp());
    next_item integer := 1;       -- the first item of call j
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
    refused boolean;
    call_answer bigint[];
    answer bigint[] := '{}';
BEGIN
    INSERT INTO rate_limit_counters AS c (bucket, key, ends_at, count)
        SELECT u.b, u.k, t, 0 FROM unnest(buckets, keys) AS u(b, k) GROUP BY u.b, u.k ORDER BY u.b, u.k
        ON CONFLICT (bucket, key) DO UPDATE SET count = c.count WHERE false;
    FOR j IN 1 .. cardinality(calls) LOOP
        call_answer := '{}';
        refused := false;
        FOR i IN next_item .. next_item + calls[j] - 1 LOOP
            size := sizes[i];
            item_seconds := seconds[next_window : next_window + size - 1];
            item_limits := limits[next_window : next_window + size - 1];
            next_window := next_window + size;
            CONTINUE WHEN refused; -- the call's later items: skipped, their windows passed over
            SELECT c.count, c.ends_at, c.window_seconds, c.window_counts, c.window_ends
                INTO stored_count, stored_end, stored_seconds, stored_counts, stored_ends
                FROM rate_limit_counters AS c WHERE c.bucket = buckets[i] AND c.key = keys[i];
            -- The open windows' counts; a window ended, never opened, or counted under other windows (the
            -- bucket's configuration changed) counts nothing and has no end yet.
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
                    UPDATE rate_limit_counters AS c SET count = counts[1], ends_at = ends[1],
                            window_seconds = NULL, window_counts = NULL, window_ends = NULL
                        WHERE c.bucket = buckets[i] AND c.key = keys[i];
                ELSE
                    -- As the one-item statement keeps such a row: count is the first window's, ends_at the last end.
                    UPDATE rate_limit_counters AS c SET count = counts[1],
                            ends_at = (SELECT max(e) FROM unnest(ends) AS e), window_seconds = item_seconds,
                            window_counts = counts, window_ends = ends
                        WHERE c.bucket = buckets[i] AND c.key = keys[i];
                END IF;
            END IF;
            call_answer := call_answer || CASE WHEN fits THEN 1::bigint ELSE 0::bigint END;
            FOR w IN 1 .. size LOOP
                call_answer := call_answer || counts[w]
                    || COALESCE(floor(extract(epoch FROM ends[w] - t) * 1000)::bigint, item_seconds[w] * 1000);
            END LOOP;
            refused := NOT fits;
        END LOOP;
        next_item := next_item + calls[j];
        answer := answer || cardinality(call_answer)::bigint || call_answer;
    END LOOP;
    RETURN answer;
END
$function$;
