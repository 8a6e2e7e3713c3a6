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
 * <p>Several items in one call (the buckets of one method) are one statement too: {@code SELECT
 * rate_limit_counters_consume(...)}, a function the migration V3 puts beside the table (see
 * {@link #consumeFunction}); its statements are static, so the server plans them once per session. It first locks
 * every row of the call in (bucket, key) order, each row once, creating the missing ones; then it decides the items
 * in their order with the rules above and stops after the first refusal, whose later items it neither decides nor
 * counts; it answers the numbers of {@link PostgresStore#consume} itself, times left included. Calls lock their rows
 * in one order and a one-item statement locks one row, so no two calls wait for each other (no deadlock, whatever
 * order a method declares its buckets in), and the sweep skips locked rows. A refusal must leave the later items
 * uncounted, which a single {@code INSERT ... ON CONFLICT} over several rows cannot express (each row is decided on
 * its own), hence the function. Its cost is measured in BENCHMARKS.md (docs/guide.md#several-limits-on-one-method):
 * it saves round trips, and holds every row of the call locked until it ends.
 *
 * <p>The calls waiting for a connection go together in one statement too: {@code SELECT
 * rate_limit_counters_consume_each(...)}, V4's function ({@link #consumeEach}), which locks every row of every
 * call in the same (bucket, key) order, without writing them, and decides each call as the function of V3 would
 * (docs/stores.md#batching).
 *
 * <p>Binding throws only the driver's {@link SQLException}, which the store classifies ({@link PostgresFailures}),
 * and {@link IllegalStateException} for a parameter name no case binds (a mistake in a statement here).
 */
final class CounterStatements {

    /** The argument types of V3's function, in the order of {@link #consumeAll()}'s casts. */
    private static final String CONSUME_ALL_TYPES = "timestamptz, varchar[], varchar[], bigint[], integer[], bigint[], "
            + "bigint[]";

    /** The argument types of V4's function, in the order of {@link #consumeEach()}'s casts. */
    private static final String CONSUME_EACH_TYPES = "timestamptz, integer[], varchar[], varchar[], bigint[], "
            + "integer[], bigint[], bigint[]";

    /** The most rows one batch of the sweep deletes ({@link #sweep()}). */
    static final int SWEEP_BATCH = 10_000;

    /** This statement's instant: the bound one in tests, else the database's, one per statement. */
    private static final String NOW = "COALESCE(:now::timestamptz, statement_timestamp())";

    private final Optional<InstantSource> boundClock;
    private final NamedStatement consumeOne;
    private final NamedStatement consumeSeveral;
    private final NamedStatement check;
    private final NamedStatement consumeAll;
    private final NamedStatement consumeEach;
    private final NamedStatement sweep;
    private final String reset;
    private final String probe;

    /**
     * @param table      the counter table, already validated as an identifier
     * @param boundClock empty in production (the database's {@code statement_timestamp()}); tests bind instants
     */
    CounterStatements(String table, Optional<InstantSource> boundClock) {
        this.boundClock = Objects.requireNonNull(boundClock, "boundClock");
        this.consumeOne = NamedStatement.of(consumeOneSql(table));
        this.consumeSeveral = NamedStatement.of(consumeSeveralSql(table));
        this.check = NamedStatement.of("SELECT " + NOW + ", c.count, c.ends_at, c.window_seconds, "
                + "c.window_counts, c.window_ends FROM (SELECT 1) AS one LEFT JOIN " + table
                + " AS c ON c.bucket = :bucket AND c.key = :key");
        this.consumeAll = NamedStatement.of("SELECT " + consumeFunction(table) + "(:now::timestamptz, "
                + ":buckets::varchar[], :keys::varchar[], :costs::bigint[], :sizes::integer[], :seconds::bigint[], "
                + ":limits::bigint[])");
        this.consumeEach = NamedStatement.of("SELECT " + consumeEachFunction(table) + "(:now::timestamptz, "
                + ":calls::integer[], :buckets::varchar[], :keys::varchar[], :costs::bigint[], :sizes::integer[], "
                + ":seconds::bigint[], :limits::bigint[])");
        // Ended rows by the same instant as the decisions; rows a decision holds locked are skipped (CounterSweep).
        this.sweep = NamedStatement.of("DELETE FROM " + table + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM " + table
                + " WHERE ends_at <= " + NOW + " LIMIT " + SWEEP_BATCH + " FOR UPDATE SKIP LOCKED))");
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

    /** The call of V3's function that decides several items; bound by {@link #bindAll}. */
    NamedStatement consumeAll() {
        return consumeAll;
    }

    /** The call of V4's function that decides several calls, each of one or more items; bound by {@link #bindEach}. */
    NamedStatement consumeEach() {
        return consumeEach;
    }

    /**
     * Deletes at most {@link #SWEEP_BATCH} rows whose windows have all ended, skipping rows a decision holds locked;
     * its one parameter, {@code :now}, is bound by {@link #bindNow}.
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
        String stale = "(c.ends_at <= " + NOW + " OR c.window_seconds IS NOT NULL)";
        // Typed casts: a client that binds untyped text (pgbench -M prepared) compares numbers, not strings.
        String fits = "c.count + :cost::bigint <= :limit::bigint";
        return "INSERT INTO " + table + " AS c (bucket, key, ends_at, count, denied) "
                + "VALUES (:bucket, :key, " + NOW + " + :window::bigint * interval '1 second', "
                + "CASE WHEN :cost::bigint <= :limit::bigint THEN :cost::bigint ELSE 0 END, "
                + ":cost::bigint > :limit::bigint) "
                + "ON CONFLICT (bucket, key) DO UPDATE SET "
                + "count = CASE WHEN " + stale + " THEN EXCLUDED.count WHEN " + fits + " THEN c.count + :cost::bigint "
                + "ELSE c.count END, "
                + "ends_at = CASE WHEN " + stale + " THEN EXCLUDED.ends_at ELSE c.ends_at END, "
                + "denied = CASE WHEN " + stale + " THEN EXCLUDED.denied ELSE NOT (" + fits + ") END, "
                + "window_seconds = NULL, window_counts = NULL, window_ends = NULL "
                + "RETURNING count, ends_at, denied, " + NOW;
    }

    /**
     * Several windows in the row's arrays. The sub-select reads each window of the old row (an ended window, or
     * every window of a row counted under other windows, as not open: count 0), decides once over all of them
     * ({@code ok}), and writes each window: counted and opened if needed when allowed; when refused, as it was,
     * an ended window kept ended (its end set to now, so no window opens at a refused call).
     */
    private static String consumeSeveralSql(String table) {
        String parameters = "(SELECT :bucket::varchar AS bucket, :key::varchar AS key, " + NOW + " AS now, "
                + ":seconds::bigint[] AS seconds, :cost::bigint AS cost, "
                + ":cost::bigint <= (SELECT min(l) FROM unnest(:limits::bigint[]) AS l) AS ok) AS p";
        String windows = "SELECT u.i, u.lim, u.old_end, "
                + "COALESCE(u.open, false) AS open, "
                + "CASE WHEN u.open THEN u.old_count ELSE 0 END AS count, "
                + "CASE WHEN u.open THEN u.old_end ELSE " + NOW + " + u.sec * interval '1 second' END AS opened_end "
                + "FROM (SELECT s.i, s.sec, s.lim, c.window_counts[s.i] AS old_count, "
                + "c.window_ends[s.i] AS old_end, "
                + "(c.window_seconds = EXCLUDED.window_seconds AND c.window_ends[s.i] > " + NOW + ") AS open "
                + "FROM unnest(EXCLUDED.window_seconds, :limits::bigint[]) WITH ORDINALITY AS s(sec, lim, i)) AS u";
        String decided = "SELECT w.*, bool_and(w.count + GREATEST(:cost, 1) <= w.lim) OVER () AS ok FROM ("
                + windows + ") AS w";
        String newCount = "CASE WHEN d.ok THEN d.count + :cost ELSE d.count END";
        String newEnd = "CASE WHEN d.ok THEN d.opened_end WHEN d.open THEN d.old_end ELSE " + NOW + " END";
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
                + "RETURNING count, ends_at, denied, " + NOW + ", window_counts, window_ends";
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
     * The function of V3 with the argument types {@link #bindAll} binds, as {@code to_regprocedure} reads it: what
     * the startup check looks for ({@link PostgresChecks}).
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

    /** Binds the sweep's instant at {@code index}: the bound one in tests, else NULL (the database's). */
    void bindNow(PreparedStatement statement, int index) throws SQLException {
        setInstant(statement, index, boundNow());
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
     * instant or NULL (the database's).
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

    /** The parameters of {@link #consumeAll()}: the items as parallel arrays, their windows one after another. */
    void bindAll(Connection connection, PreparedStatement statement, List<StoreItem> items) throws SQLException {
        bindItems(connection, statement, consumeAll, items, null);
    }

    /**
     * The parameters of {@link #consumeEach()}: every call's items one after another as {@link #bindAll} binds
     * them, and {@code :calls}, each call's number of items.
     */
    void bindEach(Connection connection, PreparedStatement statement, List<List<StoreItem>> calls)
            throws SQLException {
        int items = 0;
        Integer[] sizes = new Integer[calls.size()];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = calls.get(i).size();
            items += sizes[i];
        }
        List<StoreItem> all = new java.util.ArrayList<>(items);
        for (List<StoreItem> call : calls) {
            all.addAll(call);
        }
        bindItems(connection, statement, consumeEach, all, sizes);
    }

    private void bindItems(Connection connection, PreparedStatement statement, NamedStatement sql,
                           List<StoreItem> items, Integer[] calls) throws SQLException {
        int size = items.size();
        int windows = 0;
        for (StoreItem item : items) {
            windows += item.bucket().limits().size();
        }
        String[] buckets = new String[size];
        String[] keys = new String[size];
        Long[] costs = new Long[size];
        Integer[] sizes = new Integer[size];
        Long[] seconds = new Long[windows];
        Long[] limits = new Long[windows];
        int window = 0;
        for (int i = 0; i < size; i++) {
            StoreItem item = items.get(i);
            buckets[i] = item.bucket().name();
            keys[i] = item.key();
            costs[i] = item.cost();
            sizes[i] = item.bucket().limits().size();
            for (Bucket.Limit limit : item.bucket().limits()) {
                seconds[window] = limit.windowSeconds();
                limits[window++] = limit.limit();
            }
        }
        Optional<OffsetDateTime> now = boundNow();
        List<String> names = sql.names();
        for (int i = 0; i < names.size(); i++) {
            int index = i + 1;
            switch (names.get(i)) {
                case "now" -> setInstant(statement, index, now);
                case "calls" -> statement.setArray(index, connection.createArrayOf("integer", calls));
                case "buckets" -> statement.setArray(index, connection.createArrayOf("varchar", buckets));
                case "keys" -> statement.setArray(index, connection.createArrayOf("varchar", keys));
                case "costs" -> statement.setArray(index, connection.createArrayOf("bigint", costs));
                case "sizes" -> statement.setArray(index, connection.createArrayOf("integer", sizes));
                case "seconds" -> statement.setArray(index, connection.createArrayOf("bigint", seconds));
                case "limits" -> statement.setArray(index, connection.createArrayOf("bigint", limits));
                default -> throw new IllegalStateException("unbound parameter :" + names.get(i));
            }
        }
    }
}
