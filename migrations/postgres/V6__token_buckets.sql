-- Jakarta Rate Limiter: token buckets (docs/stores.md#token-bucket-rows). Applied after V5, by Flyway from the same
-- location and history table, or by hand (psql -f V1__..., ..., V5__..., then this file). It adds two nullable columns without a default (no row is rewritten) and one function, so the previous
-- version keeps running against it during a rolling upgrade, V5's function included. For a table of another name,
-- replace rate_limit_counters in every file alike.
--
-- A token bucket is decided as the generic cell rate algorithm (GCRA): each window keeps its theoretical arrival
-- time (TAT), the instant it is full again. Its row is keyed 'tb:' || the hashed key (a hashed key is base64url,
-- which has no ':'), so no statement of a fixed window, of this version or an earlier one, ever reads it as a
-- counter, and a bucket whose algorithm changes starts afresh. ends_at is the latest TAT, so the sweep
-- (ends_at <= now) deletes the row once every window is full, and a row always has an end; a bucket of several
-- windows keeps each TAT in window_ends, shortest window first. count is 0 and window_seconds, window_counts NULL.

-- The shape the TATs were kept under: per window its token interval (microseconds) and its capacity (tokens). A
-- row of another shape (the bucket's configuration changed) counts as full, as the in-memory store starts afresh.
ALTER TABLE rate_limit_counters ADD COLUMN IF NOT EXISTS token_intervals  bigint[];
ALTER TABLE rate_limit_counters ADD COLUMN IF NOT EXISTS token_capacities bigint[];

-- rate_limit_counters_decide_v6(instant, names, numbers): V5's function for both algorithms, with one more number
-- per item. It decides several calls, each of one or more items:
--   instant  the instant of the decisions; NULL for the database's statement_timestamp()
--   names    each item's bucket name then its row's key (a token bucket's with its 'tb:'): bucket 1, key 1, ...
--   numbers  the count of calls; each call's count of items; then per item, in the order of names: its algorithm
--            (0 fixed window, 1 token bucket), its cost (0 checks without counting: allowed iff a cost of 1 would
--            be), its count of windows, and per window two numbers: for a fixed window its length in seconds and
--            its limit; for a token bucket its token interval in microseconds and its capacity
-- It answers as V5's does: call after call, the count of numbers that follow for the call, then per decided item 1
-- if allowed else 0, then per window two numbers: for a fixed window its count and the milliseconds until it ends;
-- for a token bucket the tokens not available (capacity - floor((capacity * interval - owed) / interval)) and the
-- milliseconds until it is full (ceil(owed / 1000)), owed being max(TAT - now, 0) in microseconds. Each call stops
-- after its first refusal. Locks are taken in (bucket, key) order exactly as V5 takes them, and its statements are
-- planned once per session (plan_cache_mode), for the reasons V5 gives.
--
-- The token rule, the library's to the microsecond: with needed = max(cost, 1), an item is allowed iff every
-- window has owed + needed * interval <= capacity * interval (needed > capacity never fits); then, for a positive
-- cost, every window's TAT becomes now + owed + cost * interval. A refusal changes no TAT (a missing row is still
-- created full to be locked, as V5 does, and swept). needed is capped at capacity + 1 before it is multiplied, so
-- no cost overflows a bigint.

CREATE OR REPLACE FUNCTION rate_limit_counters_decide_v6(instant timestamptz, names varchar[], numbers bigint[])
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
    algorithm bigint;
    cost bigint;
    size integer;                 -- the item's windows
    item_seconds bigint[];        -- a fixed window's lengths; a token bucket's intervals
    item_limits bigint[];         -- a fixed window's limits; a token bucket's capacities
    item_answer bigint[];
    stored_count bigint;
    stored_end timestamptz;
    stored_seconds bigint[];
    stored_counts bigint[];
    stored_ends timestamptz[];
    stored_intervals bigint[];
    stored_capacities bigint[];
    counts bigint[];
    ends timestamptz[];
    owed bigint[];                -- a token bucket's microseconds until each window is full
    tat timestamptz;
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
    at := 2 + numbers[1];         -- the first item's algorithm
    FOR j IN 1 .. numbers[1] LOOP
        call_answer := '{}';
        refused := false;
        call_items := numbers[1 + j];
        FOR n IN 1 .. call_items LOOP
            item := item + 1;
            algorithm := numbers[at];
            cost := numbers[at + 1];
            size := numbers[at + 2];
            at := at + 3 + 2 * size;
            CONTINUE WHEN refused; -- the call's later items: skipped, their windows passed over
            IF algorithm = 0 AND size = 1 AND cost > 0 THEN
                -- One fixed window, counted: V5's upsert, unchanged.
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
            -- Anything else: the row locked and read, decided here, written when counted. Items in ascending order
            -- lock their row here, creating it as an ended window (a full token bucket) if it is missing.
            IF ascending THEN
                INSERT INTO rate_limit_counters AS c (bucket, key, ends_at, count)
                    VALUES (names[2 * item - 1], names[2 * item], t, 0)
                    ON CONFLICT (bucket, key) DO UPDATE SET count = c.count WHERE false;
            END IF;
            item_seconds := ARRAY(SELECT numbers[at - 2 * size + 2 * w] FROM generate_series(0, size - 1) AS w);
            item_limits := ARRAY(SELECT numbers[at - 2 * size + 2 * w + 1] FROM generate_series(0, size - 1) AS w);
            SELECT c.count, c.ends_at, c.window_seconds, c.window_counts, c.window_ends, c.token_intervals,
                   c.token_capacities
                INTO stored_count, stored_end, stored_seconds, stored_counts, stored_ends, stored_intervals,
                     stored_capacities
                FROM rate_limit_counters AS c WHERE c.bucket = names[2 * item - 1] AND c.key = names[2 * item];
            IF algorithm = 1 THEN
                -- A token bucket: each window's time owed until full; a row of another shape counts as full.
                owed := array_fill(0::bigint, ARRAY[size]);
                IF stored_intervals = item_seconds AND stored_capacities = item_limits THEN
                    FOR w IN 1 .. size LOOP
                        tat := CASE WHEN size = 1 THEN stored_end ELSE stored_ends[w] END;
                        IF tat > t THEN
                            owed[w] := (extract(epoch FROM tat - t) * 1000000)::bigint; -- numeric: exact
                        END IF;
                    END LOOP;
                END IF;
                fits := true;
                FOR w IN 1 .. size LOOP
                    fits := fits AND owed[w] + LEAST(GREATEST(cost, 1), item_limits[w] + 1) * item_seconds[w]
                        <= item_limits[w] * item_seconds[w];
                END LOOP;
                IF cost > 0 AND fits THEN
                    ends := array_fill(NULL::timestamptz, ARRAY[size]);
                    FOR w IN 1 .. size LOOP
                        owed[w] := owed[w] + cost * item_seconds[w];
                        ends[w] := t + owed[w] * interval '1 microsecond';
                    END LOOP;
                    UPDATE rate_limit_counters AS c SET count = 0, denied = false,
                            ends_at = (SELECT max(e) FROM unnest(ends) AS e),
                            window_seconds = NULL, window_counts = NULL,
                            window_ends = CASE WHEN size = 1 THEN NULL ELSE ends END,
                            token_intervals = item_seconds, token_capacities = item_limits
                        WHERE c.bucket = names[2 * item - 1] AND c.key = names[2 * item];
                END IF;
                call_answer := call_answer || CASE WHEN fits THEN 1::bigint ELSE 0::bigint END;
                FOR w IN 1 .. size LOOP
                    call_answer := call_answer
                        || item_limits[w] - floor((item_limits[w] * item_seconds[w] - owed[w])::numeric
                                                  / item_seconds[w])::bigint
                        || (owed[w] + 999) / 1000;
                END LOOP;
                refused := NOT fits;
                CONTINUE;
            END IF;
            -- A fixed window's check (cost 0) or several fixed windows: V5's rules, unchanged. The open windows'
            -- counts; a window ended, never opened, or counted under other windows counts nothing and has no end.
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
