package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.StoreItem;

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
 * statement too: {@code SELECT rate_limit_counters_decide(...)} ({@link #decide}), a function the migration V5 puts
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
 * (docs/guide.md#several-limits-on-one-method, docs/stores.md#batching). The functions of V3 and V4 are no longer
 * called (they stay for an earlier version of the library during a rolling upgrade); the startup check still looks
 * for them, so that the migrations are found applied in order.
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

    /** The argument types of V5's function, in the order of {@link #decide()}'s casts. */
    private static final String DECIDE_TYPES = "timestamptz, varchar[], bigint[]";

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

    private final Optional<InstantSource> boundClock;
    private final NamedStatement consumeOne;
    private final NamedStatement consumeSeveral;
    private final NamedStatement check;
    private final NamedStatement decide;
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
        this.check = NamedStatement.of("SELECT " + now + ", c.count, c.ends_at, c.window_seconds, "
                + "c.window_counts, c.window_ends FROM (SELECT 1) AS one LEFT JOIN " + table
                + " AS c ON c.bucket = :bucket AND c.key = :key");
        this.decide = NamedStatement.of("SELECT " + decideFunction(table) + "(" + (boundClock.isPresent() ? BOUND_NOW
                : "NULL") + ", "
                + ":names::varchar[], :numbers::bigint[])");
        // Ended rows by the same instant as the decisions; rows a decision holds locked are skipped (CounterSweep).
        this.sweep = NamedStatement.of("DELETE FROM " + table + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM " + table
                + " WHERE ends_at <= " + now + " LIMIT " + SWEEP_BATCH + " FOR UPDATE SKIP LOCKED))");
        this.reset = "DELETE FROM " + table + " WHERE bucket = ? AND key = ?";
        this.probe = "UPDATE " + table + " SET count = count WHERE false";
    }

    /**
     * The statement that decides one item: cost 0 reads the row ({@link CounterRows#checked}), else the upsert of
     * one window or of several ({@link CounterRows#counted}).
     */
    NamedStatement forItem(Bucket bucket, long cost) {
        return cost == 0 ? check : bucket.hasSeveralWindows() ? consumeSeveral : consumeOne;
    }

    /**
     * The call of V5's function that decides several calls, each of one or more items (one call of several items
     * too); bound by {@link #bindDecide}.
     */
    NamedStatement decide() {
        return decide;
    }

    /**
     * Deletes at most {@link #SWEEP_BATCH} rows whose windows have all ended, skipping rows a decision holds locked;
     * bound by {@link #bindSweep} (in tests {@code :now}; in production no parameter).
     */
    NamedStatement sweep() {
        return sweep;
    }

    /** Deletes one (bucket, key)'s row; parameters 1 and 2 are the bucket's name and the key. */
    String reset() {
        return reset;
    }

    /**
     * An {@code UPDATE} of the table that matches no row, without parameters: it still needs a writable session
     * and the table's privileges (see {@link PostgresStore#probe}).
     */
    String probe() {
        return probe;
    }

    /**
     * One window: {@code count} and {@code ends_at}. A row whose window has ended, or that holds several windows
     * (the bucket had several before), opens a new window.
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
                + "ends_at = CASE WHEN " + stale + " THEN EXCLUDED.ends_at ELSE c.ends_at END, "
                + "denied = CASE WHEN " + stale + " THEN EXCLUDED.denied ELSE NOT (" + fits + ") END, "
                + "window_seconds = NULL, window_counts = NULL, window_ends = NULL "
                + "RETURNING count, ends_at, denied, " + now;
    }

    /**
     * Several windows in the row's arrays. The sub-select reads each window of the old row (an ended window, or
     * every window of a row counted under other windows, as not open: count 0), decides once over all of them
     * ({@code ok}), and writes each window: counted and opened if needed when allowed; when refused, as it was,
     * an ended window kept ended (its end set to now, so no window opens at a refused call).
     */
    private static String consumeSeveralSql(String table, String now) {
        String parameters = "(SELECT :bucket::varchar AS bucket, :key::varchar AS key, " + now + " AS now, "
                + ":seconds::bigint[] AS seconds, :cost::bigint AS cost, "
                + ":cost::bigint <= (SELECT min(l) FROM unnest(:limits::bigint[]) AS l) AS ok) AS p";
        String windows = "SELECT u.i, u.lim, u.old_end, "
                + "COALESCE(u.open, false) AS open, "
                + "CASE WHEN u.open THEN u.old_count ELSE 0 END AS count, "
                + "CASE WHEN u.open THEN u.old_end ELSE " + now + " + u.sec * interval '1 second' END AS opened_end "
                + "FROM (SELECT s.i, s.sec, s.lim, c.window_counts[s.i] AS old_count, "
                + "c.window_ends[s.i] AS old_end, "
                + "(c.window_seconds = EXCLUDED.window_seconds AND c.window_ends[s.i] > " + now + ") AS open "
                + "FROM unnest(EXCLUDED.window_seconds, :limits::bigint[]) WITH ORDINALITY AS s(sec, lim, i)) AS u";
        String decided = "SELECT w.*, bool_and(w.count + GREATEST(:cost, 1) <= w.lim) OVER () AS ok FROM ("
                + windows + ") AS w";
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
     * as V3's is.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return the function's name, qualified as the table is
     */
    static String decideFunction(String table) {
        return table + "_decide";
    }

    /**
     * The function of V5 with the argument types {@link #bindDecide} binds, as {@code to_regprocedure} reads it.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return e.g. {@code rate_limit_counters_decide(timestamptz, varchar[], bigint[])}
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
     * Binds one item's values to {@code sql}, one of {@link #forItem}'s statements, by name: {@code :window} and
     * {@code :seconds} in seconds, {@code :cost} and {@code :limit} in units of cost, {@code :now} the bound
     * instant (tests only; in production the statement reads the database's).
     */
    void bind(Connection connection, PreparedStatement statement, NamedStatement sql, Bucket bucket, String key,
              long cost) throws SQLException {
        Optional<OffsetDateTime> now = boundNow();
        List<String> names = sql.names();
        for (int i = 0; i < names.size(); i++) {
            int index = i + 1;
            switch (names.get(i)) {
                case "bucket" -> statement.setString(index, bucket.name());
                case "key" -> statement.setString(index, key);
                case "now" -> setInstant(statement, index, now);
                case "cost" -> statement.setLong(index, cost);
                case "limit" -> statement.setLong(index, bucket.limit());
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
     * The parameters of {@link #decide()}, in the layout migration V5 describes: {@code :names} each item's bucket
     * name then its key, items one after another; {@code :numbers} the count of calls, each call's count of items,
     * then per item its cost (units of cost), its count of windows and per window its length in seconds and its
     * limit; {@code :now} the bound instant (tests only; in production the statement passes NULL, the database's).
     */
    void bindDecide(Connection connection, PreparedStatement statement, List<List<StoreItem>> calls)
            throws SQLException {
        int items = 0;
        int size = 1 + calls.size();
        for (List<StoreItem> call : calls) {
            items += call.size();
            for (StoreItem item : call) {
                size += 2 + 2 * item.bucket().limits().size();
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
                names[name++] = item.bucket().name();
                names[name++] = item.key();
                List<Bucket.Limit> limits = item.bucket().limits();
                numbers[number++] = item.cost();
                numbers[number++] = (long) limits.size();
                for (Bucket.Limit limit : limits) {
                    numbers[number++] = limit.windowSeconds();
                    numbers[number++] = limit.limit();
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
}
