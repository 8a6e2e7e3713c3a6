-- Jakarta Rate Limiter: the counters every replica shares (ratelimiter.backend=postgres), as the library of this
-- version reads and writes them: the table, its index, and the one function the store calls
-- (docs/stores.md#the-table). Apply it with its own Flyway location and history table
-- (locations=classpath:db/ratelimiter/postgres, table=flyway_ratelimiter_history), so it never collides with the
-- application's own V1, or by hand (psql -f this file). The same file is packaged in limiter-store-postgres's jar as
-- db/ratelimiter/postgres/. For a table of another name (ratelimiter.postgres.table), replace rate_limit_counters
-- everywhere in this file alike: the function is named after the table.
--
-- From the first release on, a released migration never changes: a changed function is a new migration adding
-- rate_limit_counters_decide_v2 (v3, ...) beside this one, which replicas of the previous version keep calling
-- during a rolling upgrade; a later release drops it (docs/stores.md#upgrades).

-- One row per (bucket, key) holds every window of the bucket.
--
-- A fixed window of one window keeps its count and end in count and ends_at; a bucket of several windows keeps
-- them all in its one row, shortest window first, in window_seconds, window_counts and window_ends, with ends_at
-- the last of the ends (the sweep deletes the row then) and count the first window's count.
--
-- A token bucket is decided as the generic cell rate algorithm (GCRA): each window keeps its theoretical arrival
-- time (TAT), the instant it is full again. Its row is keyed 'tb:' || the hashed key (a hashed key is base64url,
-- which has no ':'), so no statement of another algorithm ever reads it as a counter, and a bucket whose algorithm
-- changes starts afresh. A bucket of one window keeps its TAT as ends_at minus count microseconds: count is how far
-- ends_at lies past the TAT, 0 when ends_at is the TAT itself. The one-window upsert moves ends_at, which the sweep's
-- index holds, only when the TAT passes it, and then a slack further (a full refill, at most a minute), so its other
-- updates stay HOT, in a batch as alone (this function runs the same upsert for a counted item; a check that finds
-- more than a full refill owed writes ends_at = the TAT and count = 0). A bucket of several windows keeps each TAT
-- in window_ends, shortest window first, ends_at the latest, count 0. The sweep (ends_at <= now) deletes a row once
-- every window is full (a row of one window at most its slack later, or at the end a larger or slower bucket of the
-- name set, when a refusal brought what it owed back within a full refill), and a row always has an end; window_seconds
-- and window_counts are NULL.
--
-- A sliding window counter keeps, per window, the count of the current window (cur), the count of the window before
-- it (prev) and when the current one ends. Its row is keyed 'sw:' || the hashed key, for the same reasons. ends_at
-- is when the row's last window has nothing left to weigh (its current end plus its length): the sweep deletes the
-- row then, never while a previous count still weighs. A bucket of one window keeps cur in count, prev in previous
-- and its length in length_seconds, all scalars (its current window ends at ends_at - length); a bucket of several
-- keeps, shortest window first, each cur in window_counts, each prev in window_previous, each current end in
-- window_ends and each length in window_seconds (count is the first window's cur). A row of either layout has
-- count > 0, since it is written only when an item is counted.
CREATE TABLE IF NOT EXISTS rate_limit_counters (
    bucket           varchar(64)   NOT NULL,  -- the bucket's name
    key              varchar(128)  NOT NULL,  -- the key, hashed (HMAC-SHA-256 or SHA-256, base64url): never in clear
    ends_at          timestamptz   NOT NULL,  -- when the current window ends (see above per algorithm)
    count            bigint        NOT NULL,  -- attempts in the current window
    -- Whether the last call on the row was refused. A refused call leaves count and ends_at as they were, so a
    -- one-item statement reads its own decision back from here (RETURNING shows the new row only).
    denied           boolean       NOT NULL DEFAULT false,
    window_seconds   bigint[],                -- several windows: each window's length
    window_counts    bigint[],                -- several windows: attempts counted in each
    window_ends      timestamptz[],           -- several windows: when each ends (a token bucket's: each TAT)
    -- A token bucket: the shape its TATs were kept under, per window its token interval (microseconds) and its
    -- capacity (tokens). A row of another count of windows (the bucket's configuration changed) counts as full.
    token_intervals  bigint[],
    token_capacities bigint[],
    previous         bigint,                  -- a sliding window of one window: prev
    length_seconds   bigint,                  -- a sliding window of one window: its length
    window_previous  bigint[],                -- several sliding windows: each prev
    PRIMARY KEY (bucket, key)
);

-- The sweep deletes rows whose window has ended (ends_at <= now) in batches; this index finds them without
-- reading the whole table.
CREATE INDEX IF NOT EXISTS rate_limit_counters_ends_at ON rate_limit_counters (ends_at);

-- rate_limit_counters_decide_v1(instant, names, numbers) decides several calls, each of one or more items, of the
-- three algorithms (docs/stores.md#batching, docs/guide.md#several-limits-on-one-method): the store calls it for a
-- batch, for the several items of one call, and for the items no one-item statement decides (a token bucket of
-- several windows, a sliding window's check or several windows). An item of one fixed window or one token bucket
-- and a positive cost is one INSERT ... ON CONFLICT DO UPDATE, the store's own one-item statement's, which decides
-- by the same rules.
--   instant  the instant of the decisions; NULL for the database's statement_timestamp()
--   names    each item's bucket name then its row's key (a token bucket's with its 'tb:', a sliding window's with
--            its 'sw:'): bucket 1, key 1, ...
--   numbers  the count of calls; each call's count of items; then per item, in the order of names: its algorithm
--            (0 fixed window, 1 token bucket, 2 sliding window; a token bucket of one window that reserves its calls'
--            tokens ahead adds 4 times the microseconds it may owe beyond empty, its max-wait:
--            docs/guide.md#waiting-instead-of-refusing), its cost (0 checks without counting: allowed iff a
--            cost of 1 would be), its count of windows, and per window two numbers: for a fixed or sliding window
--            its length in seconds and its limit; for a token bucket its token interval in microseconds and its
--            capacity. A calendar window (a fixed window, its bucket's only one) gives its length negated, in
--            milliseconds: the time the library works out until its period ends (docs/guide.md#quotas-per-day-and-month)
-- Each call is decided in its items' order and stops after its first refusal (the later items of that call are
-- neither decided nor counted; the next call is decided all the same). Two calls may name the same row: they are
-- decided in their order, the second seeing the first's count. It returns, call after call, the count of numbers
-- that follow for the call, then per decided item 1 if allowed else 0, then per window: for a fixed window its count
-- and the milliseconds left until it ends (a window not open: count 0 and its whole length); for a token bucket the
-- tokens not available (capacity - floor((capacity * interval - owed) / interval)) and the milliseconds until it is
-- full (ceil(owed / 1000)), owed being max(TAT - now, 0) in microseconds; for a sliding window three numbers: its cur
-- after the call, its prev, and r, the milliseconds until its current window ends (cur and prev 0 and r its whole
-- length when the key has no state).
--
-- The token rule, the library's to the microsecond: with needed = max(cost, 1), an item is allowed iff every
-- window has owed + needed * interval <= capacity * interval + ahead (needed > capacity never fits; ahead is a reserving
-- bucket's max-wait in microseconds, else 0, and owed is read as at most capacity * interval + ahead); then, for a
-- positive cost, every window's TAT becomes now + owed + cost * interval. needed is capped at capacity + 1 before it is
-- multiplied, so no cost overflows a bigint.
--
-- The sliding rule, the library's to the millisecond (dev.ratelimiter.internal.core.window.SlidingWindow): the
-- instant is truncated to the millisecond (now), so every end is a whole millisecond. Per window of length W, at
-- now, a window whose current end has not come keeps its state; a window whose end has come, but not one length
-- later, with cur > 0, rolls (prev = cur, cur = 0, end = end + W: windows follow one another from the first counted
-- item, keeping their phase); any other window has no state (cur = prev = 0, and the window opens at this item: end
-- = now + W). With r = end - now in milliseconds (1..W) and needed = max(cost, 1), an item is allowed iff every
-- window has prev::float8 * r / W <= limit - cur - needed, computed in IEEE 754 double precision in that order, as
-- Java's (double) prev * r / W <= limit - cur - needed is; then, for a positive cost, cost is added to every
-- window's cur and the row written. A refusal, a check and a cost above a limit write nothing, and create no row:
-- a row the lock pass created only to be locked (items out of order) is deleted again before the function returns.
-- A statement that waited for a row lock behind one of a later instant reads r at most W.
--
-- A row kept under other settings of the bucket's name (a reload, a restart or a plan changed them;
-- docs/stores.md#counters-across-a-change-of-settings): a fixed window of one window whose row ends later than the
-- window's length from now ends at most that length from now, its count kept; a sliding window of one window reads
-- a row kept under another length with its counts, its current window ending at most the new length from now; a
-- token bucket's time owed until full is read under the item's capacity and interval as at most a full refill, and
-- written so when it was more; several fixed or sliding windows are read each by its length (a window of a new
-- length opens afresh). A row of another count of a token bucket's windows counts as full.
--
-- Why no deadlock: every statement that locks several rows (this function's, and the store's refunds and permits'
-- give-backs and renewals) takes them in (bucket, key) order, compared byte by byte (COLLATE "C", whatever the
-- database's collation: the order Java's String.compareTo gives these ASCII names, so the store sends a round trip's
-- calls in it). When the items (of every call, one call after another) already come in that order, a key repeated or
-- not, deciding them in their order is that order: a key's items come one after another, so its row is taken at the
-- first of them that locks it, and taking it again waits for nothing. Otherwise one statement first locks every row,
-- creating the missing ones as ended windows, in that order, each row once, without writing it (ON CONFLICT DO UPDATE
-- ... WHERE false). The one-item statements lock a single row and the sweep skips locked rows, so none of them waits
-- for another in a circle. A reset is the one exception: it deletes one key's rows (one per algorithm) in the index's
-- order, so it can meet a round trip holding two of them only when one bucket name counts under two algorithms at once,
-- and PostgreSQL then ends one of the two as a deadlock, a store failure the bucket's outage policy answers
-- (docs/stores.md#batching). The function keeps the search_path it was created with, so it finds its table whatever the
-- caller's; the store calls it in the schema ratelimiter.postgres.table names, or through the search_path for an
-- unqualified table. Its statements are static, and their plans generic (plan_cache_mode): PostgreSQL plans them once
-- per session. Left to choose, it would plan the lock pass again at every call, since a plan for the call's few rows
-- looks cheaper than one for an array of unknown length (measured: about 100 µs a call, more than the round trip the
-- function saves). An item of one sliding window is read (locked when counting), rolled and decided in PL/pgSQL's own
-- arithmetic and written when counted: an upsert holding the rolled row's expressions in its SET and WHERE costs
-- PostgreSQL about as much again, since it builds them anew at every execution.

CREATE OR REPLACE FUNCTION rate_limit_counters_decide_v1(instant timestamptz, names varchar[], numbers bigint[])
    RETURNS bigint[]
    LANGUAGE plpgsql VOLATILE
    SET search_path FROM CURRENT
    SET plan_cache_mode = force_generic_plan
AS $function$
DECLARE
    t timestamptz := COALESCE(instant, statement_timestamp());
    items integer := cardinality(names) / 2;
    ascending boolean := true;    -- the items in (bucket, key) order, a key repeated or not: no lock pass
    item integer := 0;            -- the item being decided: its bucket is names[2 * item - 1], its key names[2 * item]
    at integer;                   -- the next unread element of numbers
    call_items integer;
    algorithm bigint;
    ahead bigint;                 -- a reserving token bucket's max-wait in microseconds, else 0
    cost bigint;
    size integer;                 -- the item's windows
    item_seconds bigint[];        -- a fixed or sliding window's lengths (a calendar window's: -milliseconds left);
                                  -- a token bucket's intervals
    item_limits bigint[];         -- a fixed or sliding window's limits; a token bucket's capacities
    item_answer bigint[];
    stored_count bigint;
    stored_end timestamptz;
    stored_seconds bigint[];
    stored_counts bigint[];
    stored_ends timestamptz[];
    stored_intervals bigint[];
    stored_capacities bigint[];
    stored_previous bigint;
    stored_length bigint;
    stored_previouses bigint[];
    counts bigint[];
    ends timestamptz[];
    owed bigint[];                -- a token bucket's microseconds until each window is full
    tat timestamptz;
    fits boolean;
    refused boolean;
    call_answer bigint[];
    answer bigint[] := '{}';
    now_ms timestamptz;           -- a sliding window's instant, truncated to the millisecond
    span interval;                -- a sliding window's length W
    span_ms bigint;               -- W in milliseconds
    cur bigint;
    prev bigint;
    window_end timestamptz;
    previouses bigint[];
    lefts bigint[];               -- each sliding window's r
    expiry timestamptz;
    same boolean;
    found_row boolean;
    j integer;                    -- a stored window of the item's window's length
    clamped boolean;              -- a token bucket owed more than a full refill: written so
    token_full float8;            -- one token bucket: a full refill, in microseconds (exact below 2^53)
    token_step float8;            -- the cost's refill (0 when the cost exceeds the capacity)
    token_room float8;            -- the most owed for the cost to fit
    token_slack float8;           -- how far past the TAT a moved end goes (a full refill, at most a minute)
    token_owed bigint;            -- microseconds until full after the item
    current_end timestamptz;      -- a one-window sliding row's current window's end, at most W from now
    mark integer;                 -- the item being decided: where its answer starts in call_answer
    mark_item integer;            -- its index
    mark_at integer;              -- where its numbers start
    memo_answer bigint[];         -- the answer of the item the previous call was refused on, while the last decided
    memo_item integer;            -- that item's index
    memo_at integer;              -- where its numbers start
    uncounted integer[] := '{}';  -- sliding items out of order that counted nothing: their row, if only locked, goes
BEGIN
    FOR i IN 2 .. items LOOP
        IF (names[2 * i - 3] COLLATE "C", names[2 * i - 2] COLLATE "C")
                > (names[2 * i - 1] COLLATE "C", names[2 * i] COLLATE "C") THEN
            ascending := false;
            EXIT;
        END IF;
    END LOOP;
    IF NOT ascending THEN
        INSERT INTO rate_limit_counters AS c (bucket, key, ends_at, count)
            SELECT names[2 * g - 1], names[2 * g], t, 0 FROM generate_series(1, items) AS g
            GROUP BY 1, 2 ORDER BY names[2 * g - 1] COLLATE "C", names[2 * g] COLLATE "C"
            ON CONFLICT (bucket, key) DO UPDATE SET count = c.count WHERE false;
    END IF;
    at := 2 + numbers[1];         -- the first item's algorithm
    FOR j IN 1 .. numbers[1] LOOP
        call_answer := '{}';
        refused := false;
        call_items := numbers[1 + j];
        FOR n IN 1 .. call_items LOOP
            item := item + 1;
            algorithm := numbers[at] % 4;
            ahead := numbers[at] / 4;
            cost := numbers[at + 1];
            size := numbers[at + 2];
            at := at + 3 + 2 * size;
            CONTINUE WHEN refused; -- the call's later items: skipped, their windows passed over
            mark := cardinality(call_answer);
            mark_item := item;
            mark_at := at - 3 - 2 * size;
            -- The item the previous call was refused on, again (a hot key's batch is mostly that): refused again,
            -- with the same numbers, and no statement. A refusal writes nothing, or only brings its row to the state
            -- it decided on (denied; an end within the window; a TAT within a full refill; a row rolled), so the same
            -- item at the same instant finds the same state and is decided alike. (Where the refusal locked nothing,
            -- a sliding window's or a missing row's, another statement may change the row meanwhile: the repeat is
            -- then answered as if decided at the first one's moment, which the refusal left unchanged.) Any other item
            -- forgets it, since counting may change the row.
            IF memo_answer IS NOT NULL AND names[2 * item - 1] = names[2 * memo_item - 1]
                    AND names[2 * item] = names[2 * memo_item]
                    AND numbers[mark_at : at - 1] = numbers[memo_at : memo_at + (at - 1 - mark_at)] THEN
                call_answer := call_answer || memo_answer;
                refused := true;
                CONTINUE;
            END IF;
            memo_answer := NULL;
            IF algorithm = 0 AND size = 1 AND cost > 0 THEN
                -- One fixed window, counted: the one-item upsert, a row of a longer window brought within this one.
                INSERT INTO rate_limit_counters AS c (bucket, key, ends_at, count, denied)
                    VALUES (names[2 * item - 1], names[2 * item],
                            t + CASE WHEN numbers[at - 2] < 0 THEN -numbers[at - 2] * interval '1 millisecond'
                                     ELSE numbers[at - 2] * interval '1 second' END,
                            CASE WHEN cost <= numbers[at - 1] THEN cost ELSE 0 END, cost > numbers[at - 1])
                    ON CONFLICT (bucket, key) DO UPDATE SET
                        count = CASE WHEN c.ends_at <= t OR c.window_seconds IS NOT NULL THEN EXCLUDED.count
                                     WHEN c.count + cost <= numbers[at - 1] THEN c.count + cost
                                     ELSE c.count END,
                        ends_at = CASE WHEN c.ends_at <= t OR c.window_seconds IS NOT NULL THEN EXCLUDED.ends_at
                                       ELSE LEAST(c.ends_at, EXCLUDED.ends_at) END, -- within this window
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
            IF algorithm = 1 AND size = 1 AND cost > 0 THEN
                -- One token bucket, counted: the one-item upsert (consume-token-bucket.sql, which says why it is
                -- written so), so a batch keeps the row's end while the TAT does not pass it and its update stays
                -- HOT, as alone. Its numbers are CounterParameters' :token_full, :token_step, :token_room and
                -- :token_slack: keep the two in step.
                token_full := numbers[at - 1] * numbers[at - 2];
                token_step := CASE WHEN cost <= numbers[at - 1] THEN cost * numbers[at - 2] ELSE 0 END;
                token_room := CASE WHEN cost <= numbers[at - 1] THEN (numbers[at - 1] - cost) * numbers[at - 2]
                                   ELSE 0 END;
                token_slack := LEAST(token_full, 60000000);
                token_full := token_full + ahead; -- the most a reserving bucket may owe
                token_room := CASE WHEN cost <= numbers[at - 1] THEN token_room + ahead ELSE 0 END;
                INSERT INTO rate_limit_counters AS c (bucket, key, ends_at, count, denied, token_intervals,
                                                      token_capacities)
                    VALUES (names[2 * item - 1], names[2 * item], t + token_step * interval '1 microsecond', 0,
                            cost > numbers[at - 1], ARRAY[numbers[at - 2]], ARRAY[numbers[at - 1]])
                    ON CONFLICT (bucket, key) DO UPDATE SET
                        (ends_at, count, denied) = (
                            SELECT CASE WHEN o.tat <= c.ends_at THEN c.ends_at
                                        WHEN o.fits THEN o.tat + token_slack * interval '1 microsecond'
                                        ELSE o.tat END,
                                   CASE WHEN o.tat <= c.ends_at
                                        THEN (date_part('epoch', c.ends_at - o.tat) * 1000000)::bigint
                                        WHEN o.fits THEN token_slack::bigint
                                        ELSE 0 END,
                                   NOT o.fits
                            FROM (SELECT y.fits,
                                         CASE WHEN y.fits
                                              THEN GREATEST(y.tat, t) + token_step * interval '1 microsecond'
                                              ELSE LEAST(y.tat, t + token_full * interval '1 microsecond') END AS tat
                                  FROM (SELECT x.tat, cost <= numbers[at - 1]
                                                      AND x.tat <= t + token_room * interval '1 microsecond' AS fits
                                        FROM (SELECT CASE WHEN cardinality(c.token_intervals) = 1
                                                          THEN c.ends_at - c.count * interval '1 microsecond'
                                                          ELSE t END AS tat
                                              OFFSET 0) AS x
                                        OFFSET 0) AS y
                                  OFFSET 0) AS o),
                        window_ends = NULL, token_intervals = EXCLUDED.token_intervals,
                        token_capacities = EXCLUDED.token_capacities
                    RETURNING c.ends_at - c.count * interval '1 microsecond', c.denied INTO tat, refused;
                fits := NOT refused;
                token_owed := GREATEST((date_part('epoch', tat - t) * 1000000)::bigint, 0);
                call_answer := call_answer || CASE WHEN fits THEN 1::bigint ELSE 0::bigint END
                    -- owed is at most a full refill, so the division's truncation is the floor
                    || numbers[at - 1] - (numbers[at - 1] * numbers[at - 2] - token_owed) / numbers[at - 2]
                    || (token_owed + 999) / 1000;
                CONTINUE;
            END IF;
            IF algorithm = 2 AND size = 1 THEN
                -- One sliding window: the row read (locked when counting), rolled and decided here, in PL/pgSQL's
                -- own arithmetic; written when counted, or inserted when missing (a concurrent first item that
                -- inserted it meanwhile has it read again, locked). A refusal writes nothing, but a row kept under
                -- another length (length_seconds), written under this one. A row of one window of any length carries
                -- its counts, its current window ending at most W from now; a row of several windows (length_seconds
                -- NULL) starts afresh.
                now_ms := date_trunc('milliseconds', t);
                span_ms := numbers[at - 2] * 1000;
                span := numbers[at - 2] * interval '1 second';
                LOOP
                    IF cost > 0 THEN
                        SELECT c.count, c.previous, c.ends_at, c.length_seconds
                            INTO stored_count, stored_previous, stored_end, stored_length
                            FROM rate_limit_counters AS c
                            WHERE c.bucket = names[2 * item - 1] AND c.key = names[2 * item] FOR UPDATE;
                    ELSE
                        SELECT c.count, c.previous, c.ends_at, c.length_seconds
                            INTO stored_count, stored_previous, stored_end, stored_length
                            FROM rate_limit_counters AS c
                            WHERE c.bucket = names[2 * item - 1] AND c.key = names[2 * item];
                    END IF;
                    found_row := FOUND;
                    current_end := CASE WHEN found_row AND stored_length IS NOT NULL -- else no state
                                        THEN LEAST(stored_end - stored_length * interval '1 second', now_ms + span) END;
                    IF current_end > now_ms THEN
                        cur := stored_count;
                        prev := stored_previous;
                        window_end := current_end;
                    ELSIF current_end + span > now_ms AND stored_count > 0 THEN
                        cur := 0;
                        prev := stored_count;
                        window_end := current_end + span;
                    ELSE
                        cur := 0;
                        prev := 0;
                        window_end := now_ms + span;
                    END IF;
                    lefts := ARRAY[LEAST((extract(epoch FROM window_end - now_ms) * 1000)::bigint, span_ms)];
                    fits := prev::float8 * lefts[1]::float8 / span_ms::float8
                        <= (numbers[at - 1] - cur - GREATEST(cost, 1))::float8;
                    EXIT WHEN cost = 0;
                    IF fits AND found_row THEN
                        UPDATE rate_limit_counters AS c SET count = cur + cost, previous = prev,
                                ends_at = window_end + span, length_seconds = numbers[at - 2], denied = false,
                                window_seconds = NULL, window_counts = NULL, window_ends = NULL, window_previous = NULL
                            WHERE c.bucket = names[2 * item - 1] AND c.key = names[2 * item];
                    ELSIF fits THEN
                        INSERT INTO rate_limit_counters AS c (bucket, key, ends_at, count, previous, length_seconds)
                            VALUES (names[2 * item - 1], names[2 * item], window_end + span, cost, 0, numbers[at - 2])
                            ON CONFLICT (bucket, key) DO NOTHING;
                        CONTINUE WHEN NOT FOUND;
                    ELSIF stored_length <> numbers[at - 2] THEN
                        -- Refused under another length: the row written under this one (the same counts), so its
                        -- window's end, brought within W, stays there. The row is locked above.
                        UPDATE rate_limit_counters AS c SET count = cur, previous = prev, length_seconds = numbers[at - 2],
                                ends_at = CASE WHEN cur > 0 OR prev > 0 THEN window_end + span ELSE now_ms END
                            WHERE c.bucket = names[2 * item - 1] AND c.key = names[2 * item];
                    END IF;
                    EXIT;
                END LOOP;
                item_answer := ARRAY[CASE WHEN fits THEN 1 ELSE 0 END,
                                     CASE WHEN fits AND cost > 0 THEN cur + cost ELSE cur END, prev, lefts[1]];
                IF NOT ascending AND NOT (cost > 0 AND item_answer[1] = 1) THEN
                    uncounted := uncounted || item;
                END IF;
                call_answer := call_answer || item_answer;
                refused := item_answer[1] = 0;
                CONTINUE;
            END IF;
            item_seconds := ARRAY(SELECT numbers[at - 2 * size + 2 * w] FROM generate_series(0, size - 1) AS w);
            item_limits := ARRAY(SELECT numbers[at - 2 * size + 2 * w + 1] FROM generate_series(0, size - 1) AS w);
            IF algorithm = 2 THEN
                -- Several sliding windows: the row read (locked when counting), each window rolled, decided; when
                -- counted, updated, or inserted when missing (a concurrent first item that inserted it meanwhile
                -- has it read again, locked). Nothing is written otherwise.
                now_ms := date_trunc('milliseconds', t);
                LOOP
                    IF cost > 0 THEN
                        SELECT c.window_seconds, c.window_counts, c.window_ends, c.window_previous
                            INTO stored_seconds, stored_counts, stored_ends, stored_previouses
                            FROM rate_limit_counters AS c
                            WHERE c.bucket = names[2 * item - 1] AND c.key = names[2 * item] FOR UPDATE;
                    ELSE
                        SELECT c.window_seconds, c.window_counts, c.window_ends, c.window_previous
                            INTO stored_seconds, stored_counts, stored_ends, stored_previouses
                            FROM rate_limit_counters AS c
                            WHERE c.bucket = names[2 * item - 1] AND c.key = names[2 * item];
                    END IF;
                    found_row := FOUND;
                    same := stored_previouses IS NOT NULL; -- a row of several sliding windows: each read by length
                    counts := array_fill(0::bigint, ARRAY[size]);
                    previouses := array_fill(0::bigint, ARRAY[size]);
                    ends := array_fill(NULL::timestamptz, ARRAY[size]);
                    lefts := array_fill(0::bigint, ARRAY[size]);
                    expiry := NULL;
                    fits := true;
                    FOR w IN 1 .. size LOOP
                        span := item_seconds[w] * interval '1 second';
                        j := CASE WHEN same THEN array_position(stored_seconds, item_seconds[w]) END;
                        IF j IS NOT NULL AND stored_ends[j] > now_ms THEN
                            counts[w] := stored_counts[j];
                            previouses[w] := stored_previouses[j];
                            ends[w] := stored_ends[j];
                        ELSIF j IS NOT NULL AND stored_ends[j] + span > now_ms AND stored_counts[j] > 0 THEN
                            previouses[w] := stored_counts[j];
                            ends[w] := stored_ends[j] + span;
                        ELSE
                            ends[w] := now_ms + span;
                        END IF;
                        lefts[w] := LEAST((extract(epoch FROM ends[w] - now_ms) * 1000)::bigint,
                                          item_seconds[w] * 1000);
                        fits := fits AND previouses[w]::float8 * lefts[w]::float8 / (item_seconds[w] * 1000)::float8
                            <= (item_limits[w] - counts[w] - GREATEST(cost, 1))::float8;
                        expiry := GREATEST(expiry, ends[w] + span);
                    END LOOP;
                    EXIT WHEN cost = 0 OR NOT fits;
                    FOR w IN 1 .. size LOOP
                        counts[w] := counts[w] + cost;
                    END LOOP;
                    IF found_row THEN
                        UPDATE rate_limit_counters AS c SET count = counts[1], ends_at = expiry, denied = false,
                                previous = NULL, length_seconds = NULL, window_seconds = item_seconds,
                                window_counts = counts, window_ends = ends, window_previous = previouses
                            WHERE c.bucket = names[2 * item - 1] AND c.key = names[2 * item];
                        EXIT;
                    END IF;
                    INSERT INTO rate_limit_counters AS c (bucket, key, ends_at, count, window_seconds, window_counts,
                                                         window_ends, window_previous)
                        VALUES (names[2 * item - 1], names[2 * item], expiry, counts[1], item_seconds, counts, ends,
                                previouses)
                        ON CONFLICT (bucket, key) DO NOTHING;
                    EXIT WHEN FOUND;
                END LOOP;
                IF NOT ascending AND NOT (cost > 0 AND fits) THEN
                    uncounted := uncounted || item;
                END IF;
                call_answer := call_answer || CASE WHEN fits THEN 1::bigint ELSE 0::bigint END;
                FOR w IN 1 .. size LOOP
                    call_answer := call_answer || counts[w] || previouses[w] || lefts[w];
                END LOOP;
                refused := NOT fits;
                CONTINUE;
            END IF;
            -- Anything else: the row locked and read, decided here, written when counted. Items in (bucket, key)
            -- order lock their row here, creating it as an ended window (a full token bucket) if it is missing.
            IF ascending THEN
                INSERT INTO rate_limit_counters AS c (bucket, key, ends_at, count)
                    VALUES (names[2 * item - 1], names[2 * item], t, 0)
                    ON CONFLICT (bucket, key) DO UPDATE SET count = c.count WHERE false;
            END IF;
            SELECT c.count, c.ends_at, c.window_seconds, c.window_counts, c.window_ends, c.token_intervals,
                   c.token_capacities
                INTO stored_count, stored_end, stored_seconds, stored_counts, stored_ends, stored_intervals,
                     stored_capacities
                FROM rate_limit_counters AS c WHERE c.bucket = names[2 * item - 1] AND c.key = names[2 * item];
            IF algorithm = 1 THEN
                -- A token bucket: each window's time owed until full, whatever capacities and intervals the row
                -- was kept under (a plan's), read under the item's as at most a full refill; a row of another
                -- count of windows counts as full.
                owed := array_fill(0::bigint, ARRAY[size]);
                ends := array_fill(NULL::timestamptz, ARRAY[size]);
                clamped := false;
                IF cardinality(stored_intervals) = size THEN
                    FOR w IN 1 .. size LOOP
                        tat := CASE WHEN size = 1 THEN stored_end - stored_count * interval '1 microsecond'
                                    ELSE stored_ends[w] END;
                        ends[w] := tat;
                        IF tat > t THEN
                            owed[w] := (extract(epoch FROM tat - t) * 1000000)::bigint; -- numeric: exact
                            IF owed[w] > item_limits[w] * item_seconds[w] + ahead THEN
                                owed[w] := item_limits[w] * item_seconds[w] + ahead;
                                ends[w] := t + owed[w] * interval '1 microsecond';
                                clamped := true;
                            END IF;
                        END IF;
                    END LOOP;
                END IF;
                fits := true;
                FOR w IN 1 .. size LOOP
                    fits := fits AND owed[w] + LEAST(GREATEST(cost, 1), item_limits[w] + 1) * item_seconds[w]
                        <= item_limits[w] * item_seconds[w] + ahead;
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
                ELSIF clamped THEN
                    -- Owing more than a full refill (a larger or slower bucket of this name): written as a full
                    -- refill from now, so the bucket refills as this verdict says. The row is locked above.
                    UPDATE rate_limit_counters AS c SET ends_at = (SELECT max(e) FROM unnest(ends) AS e), count = 0,
                            window_ends = CASE WHEN size = 1 THEN NULL ELSE ends END
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
            -- A fixed window's check (cost 0) or several fixed windows: each window read by its length.
            -- The open windows' counts; a window ended, never opened, or of a length the row does not hold counts
            -- nothing and has no end.
            counts := array_fill(0::bigint, ARRAY[size]);
            ends := array_fill(NULL::timestamptz, ARRAY[size]);
            IF size = 1 AND stored_seconds IS NULL AND stored_end > t THEN
                counts[1] := stored_count;
                ends[1] := LEAST(stored_end, t + CASE WHEN item_seconds[1] < 0  -- a check writes nothing
                    THEN -item_seconds[1] * interval '1 millisecond' ELSE item_seconds[1] * interval '1 second' END);
            ELSIF size > 1 AND stored_seconds IS NOT NULL THEN
                FOR w IN 1 .. size LOOP
                    j := array_position(stored_seconds, item_seconds[w]); -- each window by its length
                    IF j IS NOT NULL AND stored_ends[j] > t THEN
                        counts[w] := stored_counts[j];
                        ends[w] := stored_ends[j];
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
                    || COALESCE(floor(extract(epoch FROM ends[w] - t) * 1000)::bigint,
                                CASE WHEN item_seconds[w] < 0 THEN -item_seconds[w] ELSE item_seconds[w] * 1000 END);
            END LOOP;
            refused := NOT fits;
        END LOOP;
        IF refused THEN
            memo_answer := call_answer[mark + 1:];
            memo_item := mark_item;
            memo_at := mark_at;
        END IF;
        answer := answer || cardinality(call_answer)::bigint || call_answer;
    END LOOP;
    IF cardinality(uncounted) > 0 THEN
        -- Sliding rows the lock pass created that nothing counted in: gone again, so no refusal leaves a row.
        DELETE FROM rate_limit_counters AS c USING unnest(uncounted) AS u(i)
            WHERE c.bucket = names[2 * u.i - 1] AND c.key = names[2 * u.i]
              AND c.count = 0 AND c.length_seconds IS NULL AND c.window_seconds IS NULL;
    END IF;
    RETURN answer;
END
$function$;
