-- Jakarta Rate Limiter: several buckets of one call, and batches, decided with one statement per item and three
-- parameters (docs/stores.md#batching, docs/guide.md#several-limits-on-one-method). Applied after V4, by Flyway from
-- the same location and history table, or by hand (psql -f V1__..., V2__..., V3__..., V4__..., then this file). It
-- adds one function beside the table and changes no row, so the previous version keeps running against it during a
-- rolling upgrade. For a table of another name, replace rate_limit_counters in every file alike.
--
-- Why: V3's and V4's functions read each item's row, decide in PL/pgSQL and write it back (two statements and about
-- thirty PL/pgSQL expressions per item), and take eight parameters, each of which the client encodes and the server
-- decodes per call; a call of two buckets cost more than two one-item statements at one thread (BENCHMARKS.md).
-- Here an item of one window and a positive cost is one INSERT ... ON CONFLICT DO UPDATE that counts, decides and
-- answers at once, with the rules of the library's one-item statement (CounterStatements.consumeOneSql); the other
-- items (a cost of 0, several windows) are read, decided and written as V4 does. V3's and V4's functions stay for
-- earlier versions of the library.
--
-- rate_limit_counters_decide(instant, names, numbers) decides several calls, each of one or more items:
--   instant  the instant of the decisions; NULL for the database's statement_timestamp()
--   names    each item's bucket name then its hashed key: bucket 1, key 1, bucket 2, key 2, ...
--   numbers  the count of calls; each call's count of items; then per item, in the order of names: its cost (0
--            checks without counting: allowed iff a cost of 1 would be), its count of windows, and per window its
--            length in seconds and its limit
-- Each call is decided in its items' order and stops after its first refusal (the later items of that call are
-- neither decided nor counted; the next call is decided all the same). Two calls may name the same row: they are
-- decided in their order, the second seeing the first's count. It returns, call after call, the count of numbers
-- that follow for the call, then those numbers: per decided item 1 if allowed else 0, then per window its count and
-- the milliseconds left until it ends (a window not open: count 0 and its whole length). V4's answer, so one reader
-- serves both.
--
-- Why no deadlock: every statement that locks several rows takes them in (bucket, key) order. When the items (of
-- every call, one call after another) already come in strictly ascending (bucket, key) order, deciding them in
-- their order is that order; otherwise one statement first locks every row, creating the missing ones as ended
-- windows, in that order, each row once, without writing it (ON CONFLICT DO UPDATE ... WHERE false), as V4 does.
-- The one-item statements lock a single row and the sweep skips locked rows, so no two statements wait for each
-- other in a circle. The statements are static, and their plans generic (plan_cache_mode, PostgreSQL 12 and later):
-- PostgreSQL plans them once per session. Left to choose, it would plan the lock pass again at every call, since
-- a plan for the call's few rows looks cheaper than one for an array of unknown length (measured: about 100 µs a
-- call, more than the round trip the function saves).

CREATE OR REPLACE FUNCTION rate_limit_counters_decide(instant timestamptz, names varchar[], numbers bigint[])
    RETURNS bigint[]
    LANGUAGE plpgsql VOLATILE
    SET search_path FROM CURRENT
    SET plan_cache_mode = force_generic_plan
AS $function$
DECLARE
    t timestamptz := COALESCE(instant, statement_timestamp());
    items integer := cardinality(names) / 2;
    ascending boolean := true;
    item integer := 0;            -- the item being decided: its bucket is names[2 * item - 1], its key names[2 * item]
    at integer;                   -- the next unread element of numbers
    call_items integer;
    cost bigint;
    size integer;                 -- the item's windows
    item_seconds bigint[];
    item_limits bigint[];
    item_answer bigint[];
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
    FOR i IN 2 .. items LOOP
        IF (names[2 * i - 3], names[2 * i - 2]) >= (names[2 * i - 1], names[2 * i]) THEN
            ascending := false;
            EXIT;
        END IF;
    END LOOP;
    IF NOT ascending THEN
        INSERT INTO rate_limit_counters AS c (bucket, key, ends_at, count)
            SELECT names[2 * g - 1], names[2 * g], t, 0 FROM generate_series(1, items) AS g
            GROUP BY 1, 2 ORDER BY 1, 2
            ON CONFLICT (bucket, key) DO UPDATE SET count = c.count WHERE false;
    END IF;
    at := 2 + numbers[1];         -- the first item's cost
    FOR j IN 1 .. numbers[1] LOOP
        call_answer := '{}';
        refused := false;
        call_items := numbers[1 + j];
        FOR n IN 1 .. call_items LOOP
            item := item + 1;
            cost := numbers[at];
            size := numbers[at + 1];
            at := at + 2 + 2 * size;
            CONTINUE WHEN refused; -- the call's later items: skipped, their windows passed over
            IF size = 1 AND cost > 0 THEN
                -- One window, counted: the one-item statement's rules. A row that ended, or held several windows,
                -- opens a new window; a refusal changes no count and sets denied.
                INSERT INTO rate_limit_counters AS c (bucket, key, ends_at, count, denied)
                    VALUES (names[2 * item - 1], names[2 * item], t + numbers[at - 2] * interval '1 second',
                            CASE WHEN cost <= numbers[at - 1] THEN cost ELSE 0 END, cost > numbers[at - 1])
                    ON CONFLICT (bucket, key) DO UPDATE SET
                        count = CASE WHEN c.ends_at <= t OR c.window_seconds IS NOT NULL THEN EXCLUDED.count
                                     WHEN c.count + cost <= numbers[at - 1] THEN c.count + cost
                                     ELSE c.count END,
                        ends_at = CASE WHEN c.ends_at <= t OR c.window_seconds IS NOT NULL THEN EXCLUDED.ends_at
                                       ELSE c.ends_at END,
                        denied = CASE WHEN c.ends_at <= t OR c.window_seconds IS NOT NULL THEN EXCLUDED.denied
                                      ELSE c.count + cost > numbers[at - 1] END,
                        window_seconds = NULL, window_counts = NULL, window_ends = NULL
                    RETURNING ARRAY[CASE WHEN c.denied THEN 0 ELSE 1 END, c.count,
                                    floor(extract(epoch FROM c.ends_at - t) * 1000)::bigint]
                    INTO item_answer;
                call_answer := call_answer || item_answer;
                refused := item_answer[1] = 0;
                CONTINUE;
            END IF;
            -- A check (cost 0) or several windows: the row locked and read, decided here, written when counted.
            -- Items in ascending order lock their row here, in that order, creating it as an ended window if it is
            -- missing, so that no other call counts between the read and the write.
            IF ascending THEN
                INSERT INTO rate_limit_counters AS c (bucket, key, ends_at, count)
                    VALUES (names[2 * item - 1], names[2 * item], t, 0)
                    ON CONFLICT (bucket, key) DO UPDATE SET count = c.count WHERE false;
            END IF;
            item_seconds := ARRAY(SELECT numbers[at - 2 * size + 2 * w] FROM generate_series(0, size - 1) AS w);
            item_limits := ARRAY(SELECT numbers[at - 2 * size + 2 * w + 1] FROM generate_series(0, size - 1) AS w);
            SELECT c.count, c.ends_at, c.window_seconds, c.window_counts, c.window_ends
                INTO stored_count, stored_end, stored_seconds, stored_counts, stored_ends
                FROM rate_limit_counters AS c WHERE c.bucket = names[2 * item - 1] AND c.key = names[2 * item];
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
                fits := fits AND counts[w] + GREATEST(cost, 1) <= item_limits[w];
            END LOOP;
            IF cost > 0 AND fits THEN
                -- Several windows (one window counted took the upsert above), kept as the one-item statement keeps
                -- them: count is the first window's, ends_at the last end.
                FOR w IN 1 .. size LOOP
                    counts[w] := counts[w] + cost;
                    ends[w] := COALESCE(ends[w], t + item_seconds[w] * interval '1 second');
                END LOOP;
                UPDATE rate_limit_counters AS c SET count = counts[1],
                        ends_at = (SELECT max(e) FROM unnest(ends) AS e), window_seconds = item_seconds,
                        window_counts = counts, window_ends = ends
                    WHERE c.bucket = names[2 * item - 1] AND c.key = names[2 * item];
            END IF;
            call_answer := call_answer || CASE WHEN fits THEN 1::bigint ELSE 0::bigint END;
            FOR w IN 1 .. size LOOP
                call_answer := call_answer || counts[w]
                    || COALESCE(floor(extract(epoch FROM ends[w] - t) * 1000)::bigint, item_seconds[w] * 1000);
            END LOOP;
            refused := NOT fits;
        END LOOP;
        answer := answer || cardinality(call_answer)::bigint || call_answer;
    END LOOP;
    RETURN answer;
END
$function$;
