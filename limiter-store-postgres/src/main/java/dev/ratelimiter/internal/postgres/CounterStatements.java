package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreRefund;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The statements of one counter table (docs/stores.md#the-table), written once with named parameters
 * ({@link NamedStatement}), and how a call binds its values to them. Counting, deciding and reopening an ended
 * window are one {@code INSERT ... ON CONFLICT (bucket, key) DO UPDATE ... RETURNING}: no read before the write, no
 * explicit transaction, no advisory lock. PostgreSQL's row lock serialises concurrent attempts on a key from any
 * number of processes, so each sees the count the previous one left, and two first attempts never fail with a
 * unique violation.
 *
 * <p>One row per (bucket, key) holds every window of the bucket (the table's V2 columns): a bucket of one window
 * uses {@code count} and {@code ends_at}, as before V2; a bucket of several keeps each window's length, count and
 * end in the arrays {@code window_seconds}, {@code window_counts} and {@code window_ends}, with {@code ends_at} the
 * last of the ends (so the sweep deletes the row once every window has ended). The statement counts the cost in
 * every window only when all of them have room for it, else it changes no count and sets {@code denied}, which
 * {@code RETURNING} reads back (it shows the new row only). A row counted under other windows (the bucket's
 * configuration changed) starts afresh. Cost 0 is one read ({@code SELECT}) that writes nothing. The rows they
 * return are read by {@link CounterRows}.
 *
 * <p>The window's time is the database's, one instant per statement ({@code statement_timestamp()}, unlike
 * {@code clock_timestamp()}, does not move between the statement's expressions); tests bind an instant instead.
 *
 * <p>Several items in one call (the buckets of one method), and the calls waiting for a connection, are one
 * statement too: {@code SELECT rate_limit_counters_decide_v10(...)} ({@link #decide}), a function the migration V10 puts
 * beside the table, with three parameters (the instant, the items' names, their numbers), since the client's cost
 * grows with each parameter it binds; its statements are static, so the server plans them once per session. It
 * decides each call's items in their order with the rules above and stops after the call's first refusal, whose
 * later items it neither decides nor counts; it answers the numbers of {@link PostgresStore#consume} itself, times
 * left included. An item of one window and a positive cost is the one-item upsert above, run in the function; a
 * check or several windows read, decide and write the row there. Every statement that locks several rows takes them
 * in (bucket, key) order: the function decides items that come in that order as they come, and first locks the rows
 * of any others, creating the missing ones, without writing them; a one-item statement locks one row and the sweep
 * skips locked rows, so no two calls wait for each other in a circle (whatever order a method declares its buckets
 * in). A refusal must leave the later items uncounted, which a single {@code INSERT ... ON CONFLICT} over several rows
 * cannot express (each row is decided on its own), hence the function. Its cost is measured in BENCHMARKS.md
 * (docs/guide.md#several-limits-on-one-method, docs/stores.md#batching). The functions of V3 to V9 are no longer
 * called (they stay for an earlier version of the library during a rolling upgrade); the startup check still looks
 * for them, so that the migrations are found applied in order.
 *
 * <p>Token buckets (docs/stores.md#token-bucket-rows) have rows of their own, keyed {@link #TOKEN_KEY_PREFIX} and
 * the hashed key, holding each window's theoretical arrival time: {@code ends_at} for one window, the latest of them
 * with each in {@code window_ends} for several. One window and a positive cost is one upsert as above
 * ({@code consumeTokensSql}); a check is the same read as a fixed window's; several windows and a positive cost go
 * to the function, which decides every algorithm.
 *
 * <p>Sliding windows (docs/stores.md#sliding-window-rows) have rows of their own too, keyed
 * {@link #SLIDING_KEY_PREFIX} and the hashed key, holding per window the current and the previous count and when the
 * current window ends; one window in scalar columns ({@code count}, {@code previous}, {@code length_seconds}, and
 * {@code ends_at} one length after the current end, when nothing is left to weigh), several in arrays. One window
 * and a positive cost is one upsert as above ({@code consumeSlidingSql}), whose refusal writes the row back as it was
 * read with {@code denied}; a check or several windows go to V10's function, as a call of one item, where a refusal
 * writes nothing and creates no row. Until V7, V6's function was called
 * ({@code <table>_decide_v6}), until V8, V7's, until V9, V8's, and until V10, V9's; they stay for those versions during
 * a rolling upgrade.
 *
 * <p>Binding throws only the driver's {@link SQLException}, which the store classifies ({@link PostgresFailures}),
 * and {@link IllegalStateException} for a parameter name no case binds (a mistake in a statement here).
 */
final class CounterStatements {

    /** The argument types of V3's function (to_regprocedure's spelling), which the startup check looks for. */
    private static final String CONSUME_ALL_TYPES = "timestamptz, varchar[], varchar[], bigint[], integer[], bigint[], "
            + "bigint[]";

    /** The argument types of V4's function (to_regprocedure's spelling), which the startup check looks for. */
    private static final String CONSUME_EACH_TYPES = "timestamptz, integer[], varchar[], varchar[], bigint[], "
            + "integer[], bigint[], bigint[]";

    /** The argument types of V5's to V10's functions, in the order of {@link #decide()}'s casts. */
    private static final String DECIDE_TYPES = "timestamptz, varchar[], bigint[]";

    /**
     * What a token bucket's row key starts with (docs/stores.md#token-bucket-rows): a hashed key is base64url, which
     * has no {@code ':'}, so no fixed window's statement, of this version or an earlier one, ever reads a token
     * bucket's state as a counter, and a bucket whose algorithm changes starts afresh.
     */
    static final String TOKEN_KEY_PREFIX = "tb:";

    /**
     * What a sliding window's row key starts with (docs/stores.md#sliding-window-rows), for the same reasons as
     * {@link #TOKEN_KEY_PREFIX}.
     */
    static final String SLIDING_KEY_PREFIX = "sw:";

    /** The algorithm numbers of V10's function: how each item in {@link #bindDecide}'s numbers is decided. */
    private static final long FIXED_WINDOW = 0;
    private static final long TOKEN_BUCKET = 1;
    private static final long SLIDING_WINDOW = 2;

    /** The most rows one batch of the sweep deletes ({@link #sweep()}). */
    static final int SWEEP_BATCH = 10_000;

    /**
     * The statement's instant in production: the database's, one per statement. Written into the text rather than
     * bound as a NULL, since the driver sends a NULL timestamp of no declared type, which has it describe the
     * statement again at every execution (about 20 µs a call, measured beside a statement without it).
     */
    private static final String DATABASE_NOW = "statement_timestamp()";

    /** The statement's instant in tests: the one they bind. */
    private static final String BOUND_NOW = ":now::timestamptz";

    /**
     * Ends a sub-select of a one-item upsert so that the planner keeps it as a level of its own. Without it, the
     * planner pulls the sub-selects up into the {@code SET}, and each name a level defines is copied, whole, into
     * every expression that uses it: the sliding window's statement grew to some 60 copies of its instant, and
     * PostgreSQL builds a statement's expressions again at every execution, which cost the sliding window half its
     * rate beside the fixed window's (BENCHMARKS.md). Kept, each level is computed once.
     */
    private static final String FENCE = " OFFSET 0";

    /**
     * Milliseconds of a whole number of milliseconds, as an {@code interval} between two instants truncated to the
     * millisecond, in a {@code bigint}: {@code MILLIS + "(a - b)" + MILLIS_END}. {@code date_part} gives a double,
     * which holds such an interval's seconds closely enough that rounding to the millisecond is exact for any window
     * the settings allow, and costs less than {@code extract}'s {@code numeric}.
     */
    private static final String MILLIS = "(date_part('epoch', ";
    private static final String MILLIS_END = ") * 1000)::bigint";

    private final Optional<InstantSource> boundClock;
    private final NamedStatement consumeOne;
    private final NamedStatement consumeSeveral;
    private final NamedStatement consumeTokens;
    private final NamedStatement consumeSliding;
    private final NamedStatement check;
    private final NamedStatement decide;
    private final NamedStatement refund;
    private final NamedStatement sweep;
    private final String reset;
    private final String probe;

    /**
     * @param table      the counter table, already validated as an identifier
     * @param boundClock empty in production (the database's {@code statement_timestamp()}); tests bind instants
     */
    CounterStatements(String table, Optional<InstantSource> boundClock) {
        this.boundClock = Objects.requireNonNull(boundClock, "boundClock");
        String now = boundClock.isPresent() ? BOUND_NOW : DATABASE_NOW;
        this.consumeOne = NamedStatement.of(consumeOneSql(table, now));
        this.consumeSeveral = NamedStatement.of(consumeSeveralSql(table, now));
        this.consumeTokens = NamedStatement.of(consumeTokensSql(table, now));
        this.consumeSliding = NamedStatement.of(consumeSlidingSql(table, now));
        this.check = NamedStatement.of("SELECT " + now + ", c.count, c.ends_at, c.window_seconds, "
                + "c.window_counts, c.window_ends, c.token_intervals, c.token_capacities FROM (SELECT 1) AS one "
                + "LEFT JOIN " + table + " AS c ON c.bucket = :bucket AND c.key = :key");
        this.decide = NamedStatement.of("SELECT " + decideFunction(table) + "(" + (boundClock.isPresent() ? BOUND_NOW
                : "NULL") + ", "
                + ":names::varchar[], :numbers::bigint[])");
        this.refund = NamedStatement.of(refundSql(table, now));
        // Ended rows by the same instant as the decisions; rows a decision holds locked are skipped (CounterSweep).
        this.sweep = NamedStatement.of("DELETE FROM " + table + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM " + table
                + " WHERE ends_at <= " + now + " LIMIT " + SWEEP_BATCH + " FOR UPDATE SKIP LOCKED))");
        this.reset = "DELETE FROM " + table + " WHERE bucket = ? AND key IN (?, ?, ?)";
        // One statement, so one round trip: the update needs the table's write privileges and a writable session,
        // V6's and V7's columns; the call needs V10's function and the right to execute it (it decides nothing, reads
        // no row).
        this.probe = "WITH touched AS (UPDATE " + table + " SET count = count, token_intervals = token_intervals, "
                + "previous = previous WHERE false RETURNING 1) SELECT " + decideFunction(table)
                + "(NULL, '{}'::varchar[], '{0}'::bigint[])";
    }

    /**
     * Whether one item is decided by one of {@link #forItem}'s statements; else, a token bucket of several windows
     * and a positive cost, or any sliding window, by V10's function ({@link #decide()}), as a call of one item.
     */
    static boolean hasItemStatement(Bucket bucket, long cost) {
        if (bucket.isSlidingWindow()) {
            return cost > 0 && !bucket.hasSeveralWindows();
        }
        return cost == 0 || !bucket.isTokenBucket() || !bucket.hasSeveralWindows();
    }

    /**
     * The statement that decides one item for which {@link #hasItemStatement} holds: cost 0 reads the row
     * ({@link CounterRows#checked}), else the upsert of a fixed window's one window or several
     * ({@link CounterRows#counted}) or of a token bucket's one window ({@link CounterRows#tokensCounted}).
     *
     * @throws IllegalStateException for a sliding window, which has no such statement
     */
    NamedStatement forItem(Bucket bucket, long cost) {
        if (bucket.isSlidingWindow()) {
            if (!hasItemStatement(bucket, cost)) {
                throw new IllegalStateException("a sliding window's check or several windows have no one-item "
                        + "statement: V10's function decides them");
            }
            return consumeSliding;
        }
        if (cost == 0) {
            return check;
        }
        if (bucket.isTokenBucket()) {
            return consumeTokens;
        }
        return bucket.hasSeveralWindows() ? consumeSeveral : consumeOne;
    }

    /**
     * The row key of {@code key} in {@code bucket}: as given for a fixed window, after {@link #TOKEN_KEY_PREFIX} for
     * a token bucket, after {@link #SLIDING_KEY_PREFIX} for a sliding window.
     */
    static String rowKey(Bucket bucket, String key) {
        return switch (bucket.algorithm()) {
            case FIXED_WINDOW -> key;
            case TOKEN_BUCKET -> TOKEN_KEY_PREFIX + key;
            case SLIDING_WINDOW -> SLIDING_KEY_PREFIX + key;
        };
    }

    /**
     * The call of V10's function that decides several calls, each of one or more items (one call of several items
     * too); bound by {@link #bindDecide}.
     */
    NamedStatement decide() {
        return decide;
    }

    /** The statement that gives refunds back ({@link #refundSql}); bound by {@link #bindRefund}. */
    NamedStatement refund() {
        return refund;
    }

    /**
     * Deletes at most {@link #SWEEP_BATCH} rows whose windows have all ended, skipping rows a decision holds locked;
     * bound by {@link #bindSweep} (in tests {@code :now}; in production no parameter).
     */
    NamedStatement sweep() {
        return sweep;
    }

    /**
     * Deletes one (bucket, key)'s rows, its fixed windows', its token bucket's and its sliding window's, whichever
     * counted it; parameters 1 to 4 are the bucket's name, the key, the key with {@link #TOKEN_KEY_PREFIX} and the
     * key with {@link #SLIDING_KEY_PREFIX}.
     */
    String reset() {
        return reset;
    }

    /**
     * An {@code UPDATE} of the table that matches no row and a call of V10's function that decides nothing, in one
     * statement without parameters: it still needs a writable session, the table's privileges and the function
     * (see {@link PostgresStore#probe}).
     */
    String probe() {
        return probe;
    }

    /**
     * One window: {@code count} and {@code ends_at}. A row whose window has ended, or that holds several windows
     * (the bucket had several before), opens a new window. A row whose window ends later than this window's length
     * from now (opened under a longer window of the bucket's name: its settings changed) is brought within it, its
     * count kept, whether the call is allowed or refused (docs/stores.md#counters-across-a-change-of-settings).
     */
    static String consumeOneSql(String table) {
        return consumeOneSql(table, DATABASE_NOW);
    }

    private static String consumeOneSql(String table, String now) {
        String stale = "(c.ends_at <= " + now + " OR c.window_seconds IS NOT NULL)";
        // Typed casts: a client that binds untyped text (pgbench -M prepared) compares numbers, not strings.
        String fits = "c.count + :cost::bigint <= :limit::bigint";
        return "INSERT INTO " + table + " AS c (bucket, key, ends_at, count, denied) "
                + "VALUES (:bucket, :key, " + now + " + :window::bigint * interval '1 second', "
                + "CASE WHEN :cost::bigint <= :limit::bigint THEN :cost::bigint ELSE 0 END, "
                + ":cost::bigint > :limit::bigint) "
                + "ON CONFLICT (bucket, key) DO UPDATE SET "
                + "count = CASE WHEN " + stale + " THEN EXCLUDED.count WHEN " + fits + " THEN c.count + :cost::bigint "
                + "ELSE c.count END, "
                + "ends_at = CASE WHEN " + stale + " THEN EXCLUDED.ends_at ELSE LEAST(c.ends_at, EXCLUDED.ends_at) END, "
                + "denied = CASE WHEN " + stale + " THEN EXCLUDED.denied ELSE NOT (" + fits + ") END, "
                + "window_seconds = NULL, window_counts = NULL, window_ends = NULL "
                + "RETURNING count, ends_at, denied, " + now;
    }

    /**
     * Several windows in the row's arrays. The sub-select reads each window of the old row by its length (an ended
     * window, a window of a length the row does not hold, or every window of a row of one window, as not open: count
     * 0; docs/stores.md#counters-across-a-change-of-settings), decides once over all of them
     * ({@code ok}), and writes each window: counted and opened if needed when allowed; when refused, as it was,
     * an ended window kept ended (its end set to now, so no window opens at a refused call).
     */
    private static String consumeSeveralSql(String table, String now) {
        String parameters = "(SELECT :bucket::varchar AS bucket, :key::varchar AS key, " + now + " AS now, "
                + ":seconds::bigint[] AS seconds, :cost::bigint AS cost, "
                + ":cost::bigint <= (SELECT min(l) FROM unnest(:limits::bigint[]) AS l) AS ok" + FENCE + ") AS p";
        String windows = "SELECT u.i, u.lim, u.old_end, "
                + "COALESCE(u.open, false) AS open, "
                + "CASE WHEN u.open THEN u.old_count ELSE 0 END AS count, "
                + "CASE WHEN u.open THEN u.old_end ELSE " + now + " + u.sec * interval '1 second' END AS opened_end "
                + "FROM (SELECT s.i, s.sec, s.lim, c.window_counts[s.j] AS old_count, "
                + "c.window_ends[s.j] AS old_end, c.window_ends[s.j] > " + now + " AS open "
                + "FROM (SELECT e.*, array_position(c.window_seconds, e.sec) AS j "
                + "FROM unnest(EXCLUDED.window_seconds, :limits::bigint[]) WITH ORDINALITY AS e(sec, lim, i)" + FENCE
                + ") AS s" + FENCE + ") AS u";
        String decided = "SELECT w.*, bool_and(w.count + GREATEST(:cost, 1) <= w.lim) OVER () AS ok FROM ("
                + windows + FENCE + ") AS w";
        String newCount = "CASE WHEN d.ok THEN d.count + :cost ELSE d.count END";
        String newEnd = "CASE WHEN d.ok THEN d.opened_end WHEN d.open THEN d.old_end ELSE " + now + " END";
        return "INSERT INTO " + table + " AS c (bucket, key, ends_at, count, denied, window_seconds, "
                + "window_counts, window_ends) "
                + "SELECT p.bucket, p.key, CASE WHEN p.ok THEN p.now + (SELECT max(x) FROM unnest(p.seconds) AS x) "
                + "* interval '1 second' ELSE p.now END, "
                + "CASE WHEN p.ok THEN p.cost ELSE 0 END, NOT p.ok, p.seconds, "
                + "ARRAY(SELECT CASE WHEN p.ok THEN p.cost ELSE 0 END FROM unnest(p.seconds)), "
                + "ARRAY(SELECT CASE WHEN p.ok THEN p.now + x * interval '1 second' ELSE p.now END "
                + "FROM unnest(p.seconds) WITH ORDINALITY AS e(x, i) ORDER BY i) "
                + "FROM " + parameters + " "
                + "ON CONFLICT (bucket, key) DO UPDATE SET "
                + "(ends_at, count, denied, window_seconds, window_counts, window_ends) = ("
                + "SELECT max(" + newEnd + "), (array_agg(" + newCount + " ORDER BY d.i))[1], NOT bool_and(d.ok), "
                + "EXCLUDED.window_seconds, array_agg(" + newCount + " ORDER BY d.i), "
                + "array_agg(" + newEnd + " ORDER BY d.i) FROM (" + decided + ") AS d) "
                + "RETURNING count, ends_at, denied, " + now + ", window_counts, window_ends";
    }

    /**
     * A token bucket of one window and a positive cost (docs/stores.md#token-bucket-rows): its row holds the window's
     * theoretical arrival time (TAT) in {@code ends_at}, and the shape it was last decided under in
     * {@code token_intervals} and {@code token_capacities}. The sub-select reads the time owed until full
     * ({@code owed}, microseconds, exact: {@code extract} gives a numeric) whatever that shape (a key keeps it when
     * its plan changes the bucket's limits), at most a full refill of the call's capacity and interval; a row of
     * several windows counts as full. It decides ({@code fits}: the rule of V10's function, needed capped at the
     * capacity + 1 so no product overflows) and, when allowed, moves the TAT on by the cost's intervals; a refusal
     * leaves the TAT as it was, but at most a full refill from now, so a row left by a larger or slower bucket
     * refills from now as the verdict says (docs/stores.md#counters-across-a-change-of-settings; a row of several
     * windows: full now), and sets
     * {@code denied}, which {@code RETURNING} reads back. A first call that does not fit writes a full row,
     * {@code ends_at} now, which the next sweep deletes.
     */
    private static String consumeTokensSql(String table, String now) {
        String shape = "(SELECT " + now + " AS now, :cost::bigint AS cost, "
                + "EXCLUDED.token_intervals[1] AS iv, EXCLUDED.token_capacities[1] AS cap, "
                + "COALESCE(cardinality(c.token_intervals) = 1, false) AS same" + FENCE + ") AS x";
        String owed = "(SELECT x.*, CASE WHEN x.same AND c.ends_at > x.now "
                + "THEN LEAST((extract(epoch FROM c.ends_at - x.now) * 1000000)::bigint, x.cap * x.iv) ELSE 0 END "
                + "AS owed FROM " + shape + FENCE + ") AS s";
        String decided = "(SELECT s.*, s.owed + LEAST(s.cost, s.cap + 1) * s.iv <= s.cap * s.iv AS fits FROM "
                + owed + FENCE + ") AS o";
        return "INSERT INTO " + table + " AS c (bucket, key, ends_at, count, denied, token_intervals, "
                + "token_capacities) "
                + "VALUES (:bucket, :key, CASE WHEN :cost::bigint <= :capacity::bigint THEN " + now
                + " + LEAST(:cost::bigint, :capacity::bigint) * :interval::bigint * interval '1 microsecond' "
                + "ELSE " + now + " END, 0, :cost::bigint > :capacity::bigint, "
                + "ARRAY[:interval::bigint], ARRAY[:capacity::bigint]) "
                + "ON CONFLICT (bucket, key) DO UPDATE SET "
                + "(ends_at, denied, window_ends, token_intervals, token_capacities) = ("
                + "SELECT CASE WHEN o.fits THEN o.now + (o.owed + o.cost * o.iv) * interval '1 microsecond' "
                + "WHEN o.same THEN LEAST(c.ends_at, o.now + o.owed * interval '1 microsecond') ELSE o.now END, "
                + "NOT o.fits, NULL::timestamptz[], "
                + "EXCLUDED.token_intervals, EXCLUDED.token_capacities FROM " + decided + ") "
                + "RETURNING ends_at, denied, " + now;
    }

    /**
     * A sliding window of one window and a positive cost (docs/stores.md#sliding-window-rows), decided as V10's
     * function decides it, to the millisecond and in the same doubles, but as one plain upsert, as a fixed window's
     * is: a call of PL/pgSQL per decision costs more than the decision. The sub-selects read the row as of now
     * ({@code x}: the instant truncated to the millisecond, whether it is a row of one window, and when its current
     * window ends, at most this window's length from now: a row kept under a longer window of the bucket's name keeps
     * its counts in a window brought within this one, docs/stores.md#counters-across-a-change-of-settings),
     * roll it ({@code s}: the current count, the previous count and the current window's end: the row's own window,
     * the one it ended into, or a new one), and decide ({@code d}). Allowed, the cost is counted; refused, the row is
     * written rolled as it was read (the same state) with {@code denied}, which {@code RETURNING} reads back, as a
     * fixed window's refusal is, with the milliseconds from now to {@code ends_at} as one number (no timestamp for
     * the client to parse); a refused call that finds nothing to weigh leaves a row ending now, which counts as
     * no state and the next sweep deletes, so no window opens at a refusal.
     */
    private static String consumeSlidingSql(String table, String now) {
        // The window's length is read back from the row proposed (EXCLUDED): each parameter bound costs the client.
        String read = "(SELECT date_trunc('milliseconds', " + now + ") AS now, :cost::bigint AS cost, "
                + ":limit::bigint AS lim, EXCLUDED.length_seconds AS secs, "
                + "EXCLUDED.length_seconds * interval '1 second' AS span, EXCLUDED.length_seconds * 1000 AS span_ms, "
                + "COALESCE(c.length_seconds IS NOT NULL, false) AS same, "
                + "LEAST(c.ends_at - c.length_seconds * interval '1 second', date_trunc('milliseconds', " + now
                + ") + EXCLUDED.length_seconds * interval '1 second') AS current_end" + FENCE + ") AS x";
        String rolled = "(SELECT x.*, "
                + "CASE WHEN x.same AND x.current_end > x.now THEN c.count ELSE 0 END AS cur, "
                + "CASE WHEN x.same AND x.current_end > x.now THEN c.previous "
                + "WHEN x.same AND x.current_end + x.span > x.now AND c.count > 0 THEN c.count ELSE 0 END AS prev, "
                + "CASE WHEN x.same AND x.current_end > x.now THEN x.current_end "
                + "WHEN x.same AND x.current_end + x.span > x.now AND c.count > 0 THEN x.current_end + x.span "
                + "ELSE x.now + x.span END AS window_end FROM " + read + FENCE + ") AS s";
        String decided = "(SELECT s.*, s.prev::float8 "
                + "* LEAST(" + MILLIS + "(s.window_end - s.now)" + MILLIS_END + ", s.span_ms)::float8 "
                + "/ s.span_ms::float8 "
                + "<= (s.lim - s.cur - s.cost)::float8 AS fits FROM " + rolled + FENCE + ") AS d";
        return "INSERT INTO " + table + " AS c (bucket, key, ends_at, count, previous, length_seconds, denied) "
                + "VALUES (:bucket, :key, date_trunc('milliseconds', " + now + ") + CASE WHEN :cost::bigint "
                + "<= :limit::bigint THEN 2 * :window::bigint * interval '1 second' ELSE interval '0' END, "
                + "CASE WHEN :cost::bigint <= :limit::bigint THEN :cost::bigint ELSE 0 END, 0, :window::bigint, "
                + ":cost::bigint > :limit::bigint) "
                + "ON CONFLICT (bucket, key) DO UPDATE SET "
                + "(count, previous, ends_at, length_seconds, denied, window_seconds, window_counts, window_ends, "
                + "window_previous) = ("
                + "SELECT CASE WHEN d.fits THEN d.cur + d.cost ELSE d.cur END, d.prev, "
                + "CASE WHEN d.fits OR d.cur > 0 OR d.prev > 0 THEN d.window_end + d.span ELSE d.now END, d.secs, "
                + "NOT d.fits, NULL::bigint[], NULL::bigint[], NULL::timestamptz[], NULL::bigint[] FROM " + decided
                + ") "
                + "RETURNING count, previous, denied, "
                + MILLIS + "(ends_at - date_trunc('milliseconds', " + now + "))" + MILLIS_END;
    }

    /**
     * Refunds (docs/stores.md#refunds): one {@code UPDATE} for any number of them, a plain statement as the one-window
     * upserts are, so no migration adds a function for it. Each step is a sub-select of its own: {@code p} the
     * instant and the windows' numbers; {@code r} one row per refund, with its bucket's windows sliced out of them;
     * {@code locked} the rows refunded, locked in (bucket, key) order as every statement that locks several rows
     * takes them, so a refund never waits in a circle with V10's function or another refund; {@code windows} each
     * window of each refund beside the row's window of the same index: whether the row was kept under the
     * refund's windows (as the decisions read it), when that window ends, and the instant to compare it with (a
     * sliding window's is truncated to the millisecond, as its decisions' is); {@code credits} per window, the
     * costs of the refunds whose window is the row's open one ({@link StoreRefund#sameWindow}), summed, so a row
     * refunded twice in one statement gets both; {@code refunded} the rows with something to give back, their
     * credits window by window; {@code changed} the row's new counts, or a token bucket's new times until full. The
     * update writes those and nothing else: no row is inserted, no window's end moves, a sliding window's
     * {@code previous} is never read.
     */
    private static String refundSql(String table, String now) {
        String parameters = "p AS (SELECT " + now + " AS now, :lengths::bigint[] AS lengths, "
                + ":capacities::bigint[] AS capacities, :ends::bigint[] AS ends)";
        String refunds = "r AS (SELECT u.bucket, u.key, u.algorithm, u.cost, u.size, p.now, "
                + "p.lengths[u.first : u.first + u.size - 1] AS lengths, "
                + "p.capacities[u.first : u.first + u.size - 1] AS capacities, "
                + "p.ends[u.first : u.first + u.size - 1] AS ends "
                + "FROM p, unnest(:buckets::varchar[], :keys::varchar[], :algorithms::bigint[], :costs::bigint[], "
                + ":firsts::integer[], :sizes::integer[]) AS u(bucket, key, algorithm, cost, first, size))";
        // MATERIALIZED: the locks are taken by this sub-select, in its order, whatever plan the update gets.
        String locked = "locked AS MATERIALIZED (SELECT c.bucket, c.key, c.count, c.ends_at, c.window_seconds, "
                + "c.window_counts, c.window_ends, c.length_seconds, c.window_previous, c.token_intervals, "
                + "c.token_capacities FROM " + table + " AS c WHERE (c.bucket, c.key) IN (SELECT bucket, key FROM r) "
                + "ORDER BY c.bucket, c.key FOR UPDATE)";
        String windows = "windows AS (SELECT l.bucket, l.key, g.w, r.cost, r.algorithm = " + TOKEN_BUCKET
                + " AS tokens, r.ends[g.w] AS ends_in, r.lengths[g.w] AS length, "
                + "CASE WHEN r.algorithm = " + SLIDING_WINDOW + " THEN date_trunc('milliseconds', r.now) "
                + "ELSE r.now END AS at, "
                + "CASE WHEN r.size > 1 THEN l.window_ends[g.w] "
                + "WHEN r.algorithm = " + SLIDING_WINDOW + " THEN l.ends_at - r.lengths[1] * interval '1 second' "
                + "ELSE l.ends_at END AS end_at, "
                + "COALESCE(CASE WHEN r.algorithm = " + TOKEN_BUCKET + " THEN cardinality(l.token_intervals) = r.size "
                + "WHEN r.algorithm = " + SLIDING_WINDOW + " AND r.size = 1 THEN l.length_seconds = r.lengths[1] "
                + "WHEN r.algorithm = " + SLIDING_WINDOW + " THEN l.window_seconds = r.lengths "
                + "AND l.window_previous IS NOT NULL "
                + "WHEN r.size = 1 THEN l.window_seconds IS NULL ELSE l.window_seconds = r.lengths END, false) "
                + "AS same "
                + "FROM locked AS l JOIN r ON r.bucket = l.bucket AND r.key = l.key "
                + "CROSS JOIN LATERAL generate_series(1, r.size) AS g(w))";
        // A token bucket's window has no end to name: any time owed is the call's to give back.
        String credits = "credits AS (SELECT bucket, key, w, bool_or(tokens) AS tokens, sum(cost) FILTER (WHERE "
                + "same AND end_at > at AND (tokens OR ends_in > 0 "
                + "AND end_at - at < (ends_in + length * 500) * interval '1 millisecond')) AS credit "
                + "FROM windows GROUP BY bucket, key, w)";
        String refunded = "refunded AS (SELECT bucket, key, bool_or(tokens) AS tokens, "
                + "array_agg(credit ORDER BY w) AS credits FROM credits GROUP BY bucket, key HAVING count(credit) > 0)";
        // One window's count or time until full sits in a scalar, several in an array: both read as an array here.
        // A cost is capped at the capacity + 1 before it is multiplied, as the decisions cap it: no overflow, and
        // still enough to fill the bucket.
        String changed = "changed AS (SELECT l.bucket, l.key, "
                + "CASE WHEN k.tokens THEN l.count ELSE n.counts[1] END AS count, "
                + "CASE WHEN k.tokens OR l.window_counts IS NULL THEN l.window_counts ELSE n.counts END "
                + "AS window_counts, "
                + "CASE WHEN k.tokens THEN (SELECT max(e) FROM unnest(n.tats) AS e) ELSE l.ends_at END AS ends_at, "
                + "CASE WHEN k.tokens AND l.window_ends IS NOT NULL THEN n.tats ELSE l.window_ends END "
                + "AS window_ends "
                + "FROM locked AS l JOIN refunded AS k ON k.bucket = l.bucket AND k.key = l.key CROSS JOIN p "
                + "CROSS JOIN LATERAL (SELECT "
                + "ARRAY(SELECT (s.n - LEAST(COALESCE(k.credits[s.w], 0), s.n))::bigint "
                + "FROM unnest(COALESCE(l.window_counts, ARRAY[l.count])) WITH ORDINALITY AS s(n, w) "
                + "ORDER BY s.w) AS counts, "
                + "ARRAY(SELECT CASE WHEN k.credits[s.w] IS NULL THEN s.e ELSE GREATEST(s.e "
                + "- LEAST(k.credits[s.w], l.token_capacities[s.w] + 1)::bigint * l.token_intervals[s.w] "
                + "* interval '1 microsecond', p.now) END "
                + "FROM unnest(COALESCE(l.window_ends, ARRAY[l.ends_at])) WITH ORDINALITY AS s(e, w) "
                + "ORDER BY s.w) AS tats) AS n)";
        return "WITH " + parameters + ", " + refunds + ", " + locked + ", " + windows + ", " + credits + ", "
                + refunded + ", " + changed + " "
                + "UPDATE " + table + " AS c SET count = x.count, window_counts = x.window_counts, "
                + "ends_at = x.ends_at, window_ends = x.window_ends "
                + "FROM changed AS x WHERE c.bucket = x.bucket AND c.key = x.key";
    }

    /**
     * The function of V3 that decides several items: named after the table ({@code <table>_consume}) and in its
     * schema when the table names one, else found through the search_path as the table is.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return the function's name, qualified as the table is
     */
    static String consumeFunction(String table) {
        return table + "_consume";
    }

    /**
     * The function of V3 with its argument types, as {@code to_regprocedure} reads it: what the startup check looks
     * for ({@link PostgresChecks}), so that the migrations are found applied in order.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return e.g. {@code rate_limit_counters_consume(timestamptz, varchar[], ...)}
     */
    static String consumeFunctionSignature(String table) {
        return consumeFunction(table) + "(" + CONSUME_ALL_TYPES + ")";
    }

    /**
     * The function of V4 that decides several calls ({@code <table>_consume_each}), named and found as V3's is.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return the function's name, qualified as the table is
     */
    static String consumeEachFunction(String table) {
        return table + "_consume_each";
    }

    /**
     * The function of V4 with the argument types {@link #bindEach} binds, as {@code to_regprocedure} reads it.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return e.g. {@code rate_limit_counters_consume_each(timestamptz, integer[], ...)}
     */
    static String consumeEachFunctionSignature(String table) {
        return consumeEachFunction(table) + "(" + CONSUME_EACH_TYPES + ")";
    }

    /**
     * The function of V5 that decides several calls with three parameters ({@code <table>_decide}), named and found
     * as V3's is. No longer called (V9's decides every algorithm); the startup check still looks for it.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return the function's name, qualified as the table is
     */
    static String decideV5Function(String table) {
        return table + "_decide";
    }

    /**
     * The function of V5 with its argument types, as {@code to_regprocedure} reads it.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return e.g. {@code rate_limit_counters_decide(timestamptz, varchar[], bigint[])}
     */
    static String decideV5FunctionSignature(String table) {
        return decideV5Function(table) + "(" + DECIDE_TYPES + ")";
    }

    /**
     * The function of V6 that decides several calls of fixed windows and token buckets ({@code <table>_decide_v6}),
     * named and found as V3's is. No longer called (V9's decides every algorithm); the startup check still looks for
     * it.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return the function's name, qualified as the table is
     */
    static String decideV6Function(String table) {
        return table + "_decide_v6";
    }

    /**
     * The function of V6 with its argument types, as {@code to_regprocedure} reads it.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return e.g. {@code rate_limit_counters_decide_v6(timestamptz, varchar[], bigint[])}
     */
    static String decideV6FunctionSignature(String table) {
        return decideV6Function(table) + "(" + DECIDE_TYPES + ")";
    }

    /**
     * The function of V7 that decides several calls of every algorithm ({@code <table>_decide_v7}), named and found
     * as V3's is. No longer called (V8's, then V9's, keep a token bucket's time owed across plans); the startup check still
     * looks for it.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return the function's name, qualified as the table is
     */
    static String decideV7Function(String table) {
        return table + "_decide_v7";
    }

    /**
     * The function of V7 with its argument types, as {@code to_regprocedure} reads it.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return e.g. {@code rate_limit_counters_decide_v7(timestamptz, varchar[], bigint[])}
     */
    static String decideV7FunctionSignature(String table) {
        return decideV7Function(table) + "(" + DECIDE_TYPES + ")";
    }

    /**
     * The function of V8 that decides several calls of every algorithm ({@code <table>_decide_v8}), named and found
     * as V3's is. No longer called (V9's keeps counters truthful when a bucket's settings change); the startup check
     * still looks for it.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return the function's name, qualified as the table is
     */
    static String decideV8Function(String table) {
        return table + "_decide_v8";
    }

    /**
     * The function of V8 with its argument types, as {@code to_regprocedure} reads it.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return e.g. {@code rate_limit_counters_decide_v8(timestamptz, varchar[], bigint[])}
     */
    static String decideV8FunctionSignature(String table) {
        return decideV8Function(table) + "(" + DECIDE_TYPES + ")";
    }

    /**
     * The function of V9 that decides several calls of every algorithm ({@code <table>_decide_v9}), named and found
     * as V3's is: V8's, whose rows kept under other settings of the bucket's name (a reload or a restart changed its
     * windows) are brought within the call's windows, each window of several read by its length
     * (docs/stores.md#counters-across-a-change-of-settings). No longer called (V10's decides as it does, at less
     * cost); the startup check still looks for it.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return the function's name, qualified as the table is
     */
    static String decideV9Function(String table) {
        return table + "_decide_v9";
    }

    /**
     * The function of V9 with its argument types, as {@code to_regprocedure} reads it.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return e.g. {@code rate_limit_counters_decide_v9(timestamptz, varchar[], bigint[])}
     */
    static String decideV9FunctionSignature(String table) {
        return decideV9Function(table) + "(" + DECIDE_TYPES + ")";
    }

    /**
     * The function of V10 that decides several calls of every algorithm ({@code <table>_decide_v10}), named and found
     * as V3's is: V9's decisions, answers and rows, an item of one sliding window read (locked when counting),
     * decided in PL/pgSQL and written when counted, where V9's upsert rebuilt the rolled row's expressions twice per
     * decision (docs/stores.md#batching).
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return the function's name, qualified as the table is
     */
    static String decideFunction(String table) {
        return table + "_decide_v10";
    }

    /**
     * The function of V10 with the argument types {@link #bindDecide} binds, as {@code to_regprocedure} reads it.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return e.g. {@code rate_limit_counters_decide_v10(timestamptz, varchar[], bigint[])}
     */
    static String decideFunctionSignature(String table) {
        return decideFunction(table) + "(" + DECIDE_TYPES + ")";
    }

    /** Binds the sweep's parameters: in tests its instant, the bound one; in production it has none. */
    void bindSweep(PreparedStatement statement) throws SQLException {
        Optional<OffsetDateTime> now = boundNow();
        List<String> names = sweep.names();
        for (int i = 0; i < names.size(); i++) {
            if (!names.get(i).equals("now")) {
                throw new IllegalStateException("unbound parameter :" + names.get(i));
            }
            setInstant(statement, i + 1, now);
        }
    }

    private Optional<OffsetDateTime> boundNow() {
        return boundClock.map(clock -> OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC));
    }

    private static void setInstant(PreparedStatement statement, int index, Optional<OffsetDateTime> instant)
            throws SQLException {
        if (instant.isPresent()) {
            statement.setObject(index, instant.get());
        } else {
            statement.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        }
    }

    /**
     * Binds one item's values to {@code sql}, one of {@link #forItem}'s statements, by name: {@code :key} the row
     * key ({@link #rowKey}), {@code :window} and {@code :seconds} in seconds, {@code :cost} and {@code :limit} in
     * units of cost, a token bucket's {@code :interval} (microseconds) and {@code :capacity} (tokens) of its one
     * window, {@code :now} the bound instant (tests only; in production the statement reads the database's).
     */
    void bind(Connection connection, PreparedStatement statement, NamedStatement sql, Bucket bucket, String key,
              long cost) throws SQLException {
        Optional<OffsetDateTime> now = boundNow();
        List<String> names = sql.names();
        for (int i = 0; i < names.size(); i++) {
            int index = i + 1;
            switch (names.get(i)) {
                case "bucket" -> statement.setString(index, bucket.name());
                case "key" -> statement.setString(index, rowKey(bucket, key));
                case "now" -> setInstant(statement, index, now);
                case "cost" -> statement.setLong(index, cost);
                case "limit" -> statement.setLong(index, bucket.limit());
                case "interval" -> statement.setLong(index, bucket.tokenIntervalMicros(0));
                case "capacity" -> statement.setLong(index, bucket.capacity(0));
                case "window" -> statement.setLong(index, bucket.windowSeconds());
                case "seconds" -> statement.setArray(index, connection.createArrayOf("bigint",
                        bucket.limits().stream().map(Bucket.Limit::windowSeconds).toArray()));
                case "limits" -> statement.setArray(index, connection.createArrayOf("bigint",
                        bucket.limits().stream().map(Bucket.Limit::limit).toArray()));
                default -> throw new IllegalStateException("unbound parameter :" + names.get(i));
            }
        }
    }

    /**
     * The parameters of {@link #decide()}, in the layout migration V7 describes (V8, V9 and V10 keep it): {@code :names} each
     * item's bucket name then its row key ({@link #rowKey}), items one after another; {@code :numbers} the count of
     * calls, each call's count of items, then per item its algorithm (0 fixed window, 1 token bucket, 2 sliding
     * window), its cost (units of cost), its count of windows and per window two numbers: a fixed or sliding window's
     * length in seconds and limit, a token bucket's interval in microseconds and capacity; {@code :now} the bound
     * instant (tests only; in production the statement passes NULL, the database's). The answer's layout differs by
     * algorithm ({@link StoreItem#answerLength}); the numbers sent do not.
     */
    void bindDecide(Connection connection, PreparedStatement statement, List<List<StoreItem>> calls)
            throws SQLException {
        int items = 0;
        int size = 1 + calls.size();
        for (List<StoreItem> call : calls) {
            items += call.size();
            for (StoreItem item : call) {
                size += 3 + 2 * item.bucket().limits().size();
            }
        }
        String[] names = new String[2 * items];
        Long[] numbers = new Long[size];
        numbers[0] = (long) calls.size();
        int name = 0;
        int number = 1 + calls.size();
        for (int j = 0; j < calls.size(); j++) {
            List<StoreItem> call = calls.get(j);
            numbers[1 + j] = (long) call.size();
            for (StoreItem item : call) {
                Bucket bucket = item.bucket();
                names[name++] = bucket.name();
                names[name++] = rowKey(bucket, item.key());
                List<Bucket.Limit> limits = bucket.limits();
                numbers[number++] = algorithmNumber(bucket);
                numbers[number++] = item.cost();
                numbers[number++] = (long) limits.size();
                for (int i = 0; i < limits.size(); i++) {
                    boolean tokens = bucket.isTokenBucket();
                    numbers[number++] = tokens ? bucket.tokenIntervalMicros(i) : limits.get(i).windowSeconds();
                    numbers[number++] = tokens ? bucket.capacity(i) : limits.get(i).limit();
                }
            }
        }
        Optional<OffsetDateTime> now = boundNow();
        List<String> parameters = decide.names();
        for (int i = 0; i < parameters.size(); i++) {
            int index = i + 1;
            switch (parameters.get(i)) {
                case "now" -> setInstant(statement, index, now);
                case "names" -> statement.setArray(index, connection.createArrayOf("varchar", names));
                case "numbers" -> statement.setArray(index, connection.createArrayOf("bigint", numbers));
                default -> throw new IllegalStateException("unbound parameter :" + parameters.get(i));
            }
        }
    }

    /**
     * Binds {@link #refund()}'s parameters: per refund, {@code :buckets} its bucket's name, {@code :keys} its row key
     * ({@link #rowKey}), {@code :algorithms} its algorithm's number (as V10's function numbers them), {@code :costs}
     * its cost, {@code :firsts} where its windows start in the arrays that follow (from 1) and {@code :sizes} how
     * many it has; per window, refund after refund, {@code :lengths} a fixed or sliding window's length in seconds
     * or a token bucket's interval in microseconds, {@code :capacities} a token bucket's capacity (0 for a window),
     * {@code :ends} the refund's milliseconds until the window ends ({@link StoreRefund#endsInMillis()}); and
     * {@code :now} the bound instant (tests only).
     */
    void bindRefund(Connection connection, PreparedStatement statement, List<StoreRefund> refunds)
            throws SQLException {
        int count = refunds.size();
        String[] buckets = new String[count];
        String[] keys = new String[count];
        Long[] algorithms = new Long[count];
        Long[] costs = new Long[count];
        Integer[] firsts = new Integer[count];
        Integer[] sizes = new Integer[count];
        int windows = 0;
        for (StoreRefund refund : refunds) {
            windows += refund.bucket().limits().size();
        }
        Long[] lengths = new Long[windows];
        Long[] capacities = new Long[windows];
        Long[] ends = new Long[windows];
        int window = 0;
        for (int i = 0; i < count; i++) {
            StoreRefund refund = refunds.get(i);
            Bucket bucket = refund.bucket();
            List<Bucket.Limit> limits = bucket.limits();
            buckets[i] = bucket.name();
            keys[i] = rowKey(bucket, refund.key());
            algorithms[i] = algorithmNumber(bucket);
            costs[i] = refund.cost();
            firsts[i] = window + 1;
            sizes[i] = limits.size();
            for (int w = 0; w < limits.size(); w++) {
                boolean tokens = bucket.isTokenBucket();
                lengths[window] = tokens ? bucket.tokenIntervalMicros(w) : limits.get(w).windowSeconds();
                capacities[window] = tokens ? bucket.capacity(w) : 0L;
                ends[window] = refund.endsInMillis()[w];
                window++;
            }
        }
        Optional<OffsetDateTime> now = boundNow();
        List<String> parameters = refund.names();
        for (int i = 0; i < parameters.size(); i++) {
            int index = i + 1;
            switch (parameters.get(i)) {
                case "now" -> setInstant(statement, index, now);
                case "buckets" -> statement.setArray(index, connection.createArrayOf("varchar", buckets));
                case "keys" -> statement.setArray(index, connection.createArrayOf("varchar", keys));
                case "algorithms" -> statement.setArray(index, connection.createArrayOf("bigint", algorithms));
                case "costs" -> statement.setArray(index, connection.createArrayOf("bigint", costs));
                case "firsts" -> statement.setArray(index, connection.createArrayOf("integer", firsts));
                case "sizes" -> statement.setArray(index, connection.createArrayOf("integer", sizes));
                case "lengths" -> statement.setArray(index, connection.createArrayOf("bigint", lengths));
                case "capacities" -> statement.setArray(index, connection.createArrayOf("bigint", capacities));
                case "ends" -> statement.setArray(index, connection.createArrayOf("bigint", ends));
                default -> throw new IllegalStateException("unbound parameter :" + parameters.get(i));
            }
        }
    }

    /** The number of {@code bucket}'s algorithm in V10's function. */
    private static long algorithmNumber(Bucket bucket) {
        return switch (bucket.algorithm()) {
            case FIXED_WINDOW -> FIXED_WINDOW;
            case TOKEN_BUCKET -> TOKEN_BUCKET;
            case SLIDING_WINDOW -> SLIDING_WINDOW;
        };
    }
}
