package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Sweepable;
import dev.ratelimiter.internal.core.ErrorDescriptions;
import dev.ratelimiter.spi.FailureKind;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;

import javax.sql.DataSource;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientException;
import java.sql.SQLTimeoutException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Fixed windows in a PostgreSQL table. Counting, deciding and reopening an ended window are one
 * {@code INSERT ... ON CONFLICT (bucket, key) DO UPDATE ... RETURNING}: no read before the write, no explicit
 * transaction, no advisory lock. PostgreSQL's row lock serialises concurrent attempts on a key from any number of
 * processes, so each sees the count the previous one left, and two first attempts never fail with a unique
 * violation.
 *
 * <p>One row per (bucket, key) holds every window of the bucket (the table's V2 columns): a bucket of one window
 * uses {@code count} and {@code ends_at}, as before V2; a bucket of several keeps each window's length, count and
 * end in the arrays {@code window_seconds}, {@code window_counts} and {@code window_ends}, with {@code ends_at} the
 * last of the ends (so the sweep deletes the row once every window has ended). The statement counts the cost in
 * every window only when all of them have room for it, else it changes no count and sets {@code denied}, which
 * {@code RETURNING} reads back (it shows the new row only). A row counted under other windows (the bucket's
 * configuration changed) starts afresh. Cost 0 is one read ({@code SELECT}) that writes nothing.
 *
 * <p>The window's time is the database's, one instant per statement ({@code statement_timestamp()}, unlike
 * {@code clock_timestamp()}, does not move between the statement's expressions); tests bind an instant instead.
 *
 * <p>Deadlines: a bulkhead ({@link Semaphore#tryAcquire(long, TimeUnit)}) admits at most {@code permits} calls
 * at once and waits at most {@code timeout} for a place, since pools cannot all wait less than 250 ms; each call
 * runs with the connection's network timeout at 1.5 x {@code timeout} (set once per connection of the library's
 * own pool, set and put back on a server's pool), which bounds it whatever the server does (the
 * statement timeout, which lets the server end a slow statement and keep the connection, is the pool's: the
 * library's own pool sets it unless behind PgBouncer). No client-side cancel: pgjdbc makes a timed-out call wait
 * for its cancel request to finish, which against a paused server takes the driver's cancelSignalTimeout (10 s).
 * A failure of {@link #consume}, {@link #reset} or {@link #probe} is thrown as a {@link StoreException} classified by
 * {@link PostgresFailures} (the library answers it {@code UNAVAILABLE} and reports it); nothing is thrown out of
 * {@link #sweep}. A failed connection leaves its pool, before the exception is thrown, when no later call could use
 * it ({@link FailureKind#RECONNECT}).
 *
 * <p>Several items in one call (the buckets of one method) are one statement too: {@code SELECT
 * rate_limit_counters_consume(...)}, a function the migration V3 puts beside the table (see
 * {@link #consumeFunction}); its statements are static, so the server plans them once per session. It first locks
 * every row of the call in (bucket, key) order, each row once, creating the missing ones; then it decides the items
 * in their order with the rules above and stops after the first refusal, whose later items it neither decides nor
 * counts; it answers the numbers of {@link #consume} itself, times left included. Calls lock their rows in one order
 * and a one-item statement locks one row, so no two calls wait for each other (no deadlock, whatever order a method
 * declares its buckets in), and the sweep skips locked rows. A refusal must leave the later items uncounted, which a
 * single {@code INSERT ... ON CONFLICT} over several rows cannot express (each row is decided on its own), hence the
 * function. Its cost is measured in BENCHMARKS.md (docs/guide.md#several-limits-on-one-method): it saves round
 * trips, and holds every row of the call locked until it ends.
 */
public final class PostgresStore implements RateLimitStore, Sweepable {

    private static final System.Logger LOG = System.getLogger(PostgresStore.class.getName());
    private static final Executor DIRECT = Runnable::run;
    private static final VarHandle BIG_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.BIG_ENDIAN);
    private static final int SWEEP_BATCH = 10_000;
    private static final int SWEEP_TIMEOUT_MILLIS = 30_000;

    private final DataSource dataSource;
    private final String table;
    private final int timeoutMillis;
    private final int networkTimeoutMillis;
    private final Semaphore bulkhead;
    private final Optional<InstantSource> boundClock;
    private final NamedStatement consumeOne;
    private final NamedStatement consumeSeveral;
    private final NamedStatement check;
    private final NamedStatement consumeAll;
    private final String resetSql;
    private final String sweepSql;
    private final String probeSql;
    private final ConnectionEviction eviction;
    private final boolean ownPool;
    private final DataSource checked;
    private final Runnable closing;
    private final Set<String> configurationStatesLogged = ConcurrentHashMap.newKeySet();

    /**
     * A store on a pool it does not own: {@link #close()} leaves the pool open.
     *
     * @param dataSource a non-transactional pool (autocommit, READ COMMITTED)
     * @param table      the counter table, already validated as an identifier
     * @param timeout    the deadline of each call
     * @param permits    calls in flight at once (the bulkhead)
     * @param boundClock empty in production (the database's {@code statement_timestamp()}); tests bind instants
     * @param eviction   how a connection that must not be used again leaves the pool
     */
    public PostgresStore(DataSource dataSource, String table, Duration timeout, int permits,
                         Optional<InstantSource> boundClock, ConnectionEviction eviction) {
        this(dataSource, table, timeout, permits, boundClock, eviction, false);
    }

    /**
     * @param ownPool {@code true} when {@code dataSource} is the library's own pool ({@link HikariPools#create}),
     *                used by nothing else: a connection then keeps the network timeout a call set on it, set on the
     *                driver's connection, so the pool does not put it back on every return and the next call on it
     *                finds it set. {@code false} for a server's pool shared with the application: each call puts
     *                the connection's previous network timeout back. The pool is not closed by {@link #close()}.
     * @param dataSource a non-transactional pool (autocommit, READ COMMITTED)
     * @param table      the counter table, already validated as an identifier
     * @param timeout    the deadline of each call
     * @param permits    calls in flight at once (the bulkhead)
     * @param boundClock empty in production (the database's {@code statement_timestamp()}); tests bind instants
     * @param eviction   how a connection that must not be used again leaves the pool
     */
    public PostgresStore(DataSource dataSource, String table, Duration timeout, int permits,
                         Optional<InstantSource> boundClock, ConnectionEviction eviction, boolean ownPool) {
        this(dataSource, dataSource, table, timeout, permits, boundClock, eviction, ownPool, () -> { });
    }

    private PostgresStore(DataSource dataSource, DataSource checked, String table, Duration timeout, int permits,
                          Optional<InstantSource> boundClock, ConnectionEviction eviction, boolean ownPool,
                          Runnable closing) {
        this.checked = checked;
        this.closing = closing;
        this.ownPool = ownPool;
        this.eviction = Objects.requireNonNull(eviction, "eviction");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.table = Objects.requireNonNull(table, "table");
        this.timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        // A margin over the statement timeout, so a slow statement is cancelled by the server (the connection
        // stays usable) before the socket gives up (the driver then closes the connection).
        this.networkTimeoutMillis = timeoutMillis + Math.max(50, timeoutMillis / 2);
        this.bulkhead = new Semaphore(permits);
        this.boundClock = Objects.requireNonNull(boundClock, "boundClock");
        this.consumeOne = NamedStatement.of(consumeOneSql(table));
        this.consumeSeveral = NamedStatement.of(consumeSeveralSql(table));
        this.check = NamedStatement.of("SELECT " + NOW + ", c.count, c.ends_at, c.window_seconds, "
                + "c.window_counts, c.window_ends FROM (SELECT 1) AS one LEFT JOIN " + table
                + " AS c ON c.bucket = :bucket AND c.key = :key");
        this.consumeAll = NamedStatement.of("SELECT " + consumeFunction(table) + "(:now::timestamptz, "
                + ":buckets::varchar[], :keys::varchar[], :costs::bigint[], :sizes::integer[], :seconds::bigint[], "
                + ":limits::bigint[])");
        this.resetSql = "DELETE FROM " + table + " WHERE bucket = ? AND key = ?";
        this.probeSql = "UPDATE " + table + " SET count = count WHERE false";
        this.sweepSql = "DELETE FROM " + table + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM " + table
                + " WHERE ends_at <= COALESCE(?::timestamptz, statement_timestamp()) LIMIT " + SWEEP_BATCH
                + " FOR UPDATE SKIP LOCKED))";
    }

    /**
     * The store of {@code settings}: on {@code dataSource}, a server's pool whose wait for a free connection is
     * then bounded by the deadline ({@link BoundedWaitDataSource}) and which {@link #close()} leaves open; or, when
     * empty, on the library's own pool from {@code ratelimiter.postgres.url}, whose own connection timeout bounds
     * that wait and which {@link #close()} closes.
     *
     * @param settings   {@code ratelimiter.postgres.*}
     * @param dataSource the DataSource named by the settings or the application's bean; empty for the own pool
     * @return the store, with the database's time
     */
    static PostgresStore start(PostgresSettings settings, Optional<DataSource> dataSource) {
        if (dataSource.isEmpty()) {
            // HikariCP is optional: only the library's own pool may name it.
            DataSource pool = HikariPools.create(settings);
            return new PostgresStore(pool, pool, settings.table(), settings.timeout(), settings.poolSize(),
                    Optional.empty(), HikariPools.eviction(pool), true, () -> HikariPools.close(pool));
        }
        BoundedWaitDataSource bounded = new BoundedWaitDataSource(dataSource.get(), settings.connectionWait(),
                settings.poolSize());
        return new PostgresStore(bounded, dataSource.get(), settings.table(), settings.timeout(),
                settings.poolSize(), Optional.empty(), ConnectionEviction.ABORT, false, bounded::close);
    }

    /**
     * Problems of the DataSource and table, each saying what to change (see {@link PostgresChecks}); none yet for a
     * DataSource whose JNDI name is not bound at startup, which checks itself when it first resolves
     * ({@link LateBoundDataSource}).
     */
    List<String> check() {
        return checked instanceof LateBoundDataSource ? List.of() : PostgresChecks.check(checked, table);
    }

    /**
     * The longest a call can take: a bulkhead wait of the timeout, then a network timeout of 1.5 times it (plus a
     * margin), so that whoever waits for a call from another thread waits a little longer than the call can.
     */
    Duration deadline() {
        return Duration.ofMillis(timeoutMillis).multipliedBy(3).plusMillis(100);
    }

    /** The argument types of V3's function, in the order of {@link #consumeAll}'s casts. */
    private static final String CONSUME_ALL_TYPES = "timestamptz, varchar[], varchar[], bigint[], integer[], bigint[], "
            + "bigint[]";

    /** This statement's instant: the bound one in tests, else the database's, one per statement. */
    private static final String NOW = "COALESCE(:now::timestamptz, statement_timestamp())";

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

    @Override
    public long[] consume(List<StoreItem> items) throws StoreException {
        acquire();
        try {
            if (items.size() == 1) {
                StoreItem item = items.get(0);
                long[] answer = new long[answerSize(item)];
                onConnection(networkTimeoutMillis, connection -> decide(connection, item, answer, 0));
                return answer;
            }
            return onConnection(networkTimeoutMillis, connection -> decideAll(connection, items));
        } catch (SQLException | RuntimeException e) {
            throw new StoreException(PostgresFailures.classify(e), e);
        } finally {
            bulkhead.release();
        }
    }

    private static int answerSize(StoreItem item) {
        return 1 + 2 * item.bucket().limits().size();
    }

    /** Waits at most the timeout for a place in the bulkhead, since pools cannot all wait less than 250 ms. */
    private void acquire() throws StoreException {
        try {
            if (!bulkhead.tryAcquire(timeoutMillis, TimeUnit.MILLISECONDS)) {
                throw new StoreException(FailureKind.TRANSIENT,
                        new SQLTimeoutException("no connection within the deadline (bulkhead full)"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException(FailureKind.TRANSIENT,
                    new SQLTimeoutException("interrupted while waiting for a connection"));
        }
    }

    /**
     * Decides one item with one statement, writing its numbers into {@code answer} from {@code offset}.
     *
     * @return whether it was allowed
     */
    private boolean decide(Connection connection, StoreItem item, long[] answer, int offset) throws SQLException {
        Bucket bucket = item.bucket();
        long cost = item.cost();
        NamedStatement sql = cost == 0 ? check : bucket.hasSeveralWindows() ? consumeSeveral : consumeOne;
        try (PreparedStatement statement = connection.prepareStatement(sql.sql())) {
            bind(connection, statement, sql, bucket, item.key(), cost);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return cost == 0 ? checked(bucket, row, answer, offset) : counted(bucket, row, answer, offset);
            }
        }
    }

    /**
     * Decides several items with one statement (the function of V3).
     *
     * @return the answer of {@link #consume}, as the function gives it: each decided item's flag, then each of its
     *         windows' count and milliseconds left (the server works them out, so no timestamp is parsed here)
     */
    private long[] decideAll(Connection connection, List<StoreItem> items) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(consumeAll.sql())) {
            bindAll(connection, statement, items);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                Object[] numbers = (Object[]) row.getArray(1).getArray();
                long[] answer = new long[numbers.length];
                for (int i = 0; i < numbers.length; i++) {
                    answer[i] = ((Number) numbers[i]).longValue();
                }
                return answer;
            }
        }
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
     * The function of V3 with the argument types {@link #consume} binds, as {@code to_regprocedure} reads it: what
     * the startup check looks for ({@link PostgresChecks}).
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return e.g. {@code rate_limit_counters_consume(timestamptz, varchar[], ...)}
     */
    static String consumeFunctionSignature(String table) {
        return consumeFunction(table) + "(" + CONSUME_ALL_TYPES + ")";
    }

    @Override
    public void reset(Bucket bucket, String key) throws StoreException {
        try {
            onConnection(networkTimeoutMillis, connection -> {
                try (PreparedStatement statement = connection.prepareStatement(resetSql)) {
                    statement.setString(1, bucket.name());
                    statement.setString(2, key);
                    return statement.executeUpdate();
                }
            });
        } catch (SQLException | RuntimeException e) {
            throw new StoreException(PostgresFailures.classify(e), e);
        }
    }

    /**
     * Deletes the rows whose window has ended, in batches of 10 000, each its own short transaction holding a
     * transaction-scoped advisory lock that only sweeps of this table take: when another replica is sweeping,
     * returns what it deleted so far (0 at once when it was first). The lock ends with its transaction, so it
     * neither leaks nor needs the same server session for taking and releasing, as behind a transaction pooler.
     * Rows a decision holds locked are skipped, not waited for: a call of several buckets keeps all its rows locked
     * until it ends, some of them ended, and a sweep that waited for one while holding others could deadlock with
     * it. A skipped row goes at the next sweep.
     */
    @Override
    public long sweep() {
        long[] deleted = {0};
        try {
            onConnection(SWEEP_TIMEOUT_MILLIS, connection -> deleteEnded(connection, deleted));
        } catch (SQLException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "sweep of " + table + " stopped after " + deleted[0] + " rows; the "
                    + "next one runs on schedule", e);
        }
        return deleted[0];
    }

    /**
     * Each batch is its own short transaction with a statement timeout of its own: a pool's timeout (100 ms) fits
     * a decision, not a delete of 10 000 rows. {@code SET LOCAL} ends with the transaction, so it never reaches
     * another client of a transaction pooler.
     */
    private long deleteEnded(Connection connection, long[] deleted) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (PreparedStatement timeout = connection.prepareStatement(
                "SET LOCAL statement_timeout = " + SWEEP_TIMEOUT_MILLIS);
             PreparedStatement lock = connection.prepareStatement(
                     // Keyed by the table's own identity (its OID), so tables of the same name in other schemas of
                     // one database keep sweeps of their own; 0x524C ("RL") is the library's lock space.
                     "SELECT pg_try_advisory_xact_lock(?, hashtext(?::regclass::oid::text))");
             PreparedStatement statement = connection.prepareStatement(sweepSql)) {
            lock.setInt(1, 0x524C);
            lock.setString(2, table);
            setInstant(statement, 1, boundNow());
            int batch;
            do {
                timeout.execute();
                if (!locked(lock)) {
                    connection.rollback();
                    break; // another replica sweeps
                }
                batch = statement.executeUpdate();
                connection.commit();
                deleted[0] += batch;
            } while (batch == SWEEP_BATCH);
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
        return deleted[0];
    }

    private static boolean locked(PreparedStatement lock) throws SQLException {
        try (ResultSet row = lock.executeQuery()) {
            return row.next() && row.getBoolean(1);
        }
    }

    /**
     * One cheap round trip for the circuit breaker's probe, on the write path: an {@code UPDATE} of the counter
     * table that matches no row still needs a writable session and the table's privileges, so a read-only session
     * (a demoted writer, a standby behind the same address) fails it with SQLSTATE 25006 where {@code SELECT 1}
     * would succeed and close the breaker on a store that refuses every decision.
     *
     * @throws StoreException if the database does not take a write within the deadline
     */
    @Override
    public void probe() throws StoreException {
        try {
            onConnection(networkTimeoutMillis, connection -> {
                try (PreparedStatement statement = connection.prepareStatement(probeSql)) {
                    return statement.executeUpdate();
                }
            });
        } catch (SQLException | RuntimeException e) {
            throw new StoreException(PostgresFailures.classify(e), e);
        }
    }

    /** Always: each call waits on the network and on the row's lock. */
    @Override
    public boolean blocking() {
        return true;
    }

    /** Closes the library's own pool, or ends the threads waiting for a server's pool (which the server closes). */
    @Override
    public void close() {
        closing.run();
    }

    /** Work on a borrowed connection. */
    @FunctionalInterface
    private interface ConnectionWork<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code work} on a connection of the pool with the given network timeout, refusing one that joined the
     * caller's transaction; a connection that failed in a way no later call could use ({@link FailureKind#RECONNECT} ({@link PostgresFailures}))
     * leaves its pool, and a failure only a person can fix is logged once.
     */
    private <T> T onConnection(int networkTimeout, ConnectionWork<T> work) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            try {
                refuseJoinedTransaction(connection);
                if (ownPool) {
                    setNetworkTimeout(connection.unwrap(Connection.class), networkTimeout);
                    return work.run(connection);
                }
                int previous = connection.getNetworkTimeout();
                connection.setNetworkTimeout(DIRECT, networkTimeout);
                try {
                    return work.run(connection);
                } finally {
                    restore(connection, previous);
                }
            } catch (SQLException | RuntimeException e) {
                if (PostgresFailures.classify(e) == FailureKind.RECONNECT) {
                    evict(connection, e);
                }
                throw e;
            }
        } catch (SQLException e) {
            if (PostgresFailures.classify(e) == FailureKind.CONFIGURATION) {
                logConfigurationFailure(e);
            }
            throw e;
        }
    }

    private void evict(Connection connection, Exception cause) {
        try {
            eviction.evict(connection);
        } catch (SQLException | RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    /** Once per SQLSTATE: the failure repeats on every call until someone changes the setup. */
    private void logConfigurationFailure(SQLException failure) {
        if (configurationStatesLogged.add(String.valueOf(failure.getSQLState()))) {
            LOG.log(System.Logger.Level.ERROR, "Rate limiter: a PostgreSQL call failed in a way only a change of "
                    + "setup fixes (" + ErrorDescriptions.describe(failure) + "); decisions fall to the buckets' "
                    + "outage policies until it is fixed (behind PgBouncer: see docs/stores.md#pgbouncer)");
        }
    }

    /**
     * A transactional server pool passes the startup check (its connections are in autocommit outside a
     * transaction) and then hands out, inside the caller's transaction, a connection enlisted in it: the counter
     * would roll back with the caller's work and hold its row lock until then. Such a connection is not in
     * autocommit; it is not used, and the failure (the outage policy decides, readiness names it) says what to fix.
     */
    private void refuseJoinedTransaction(Connection connection) throws SQLException {
        if (!connection.getAutoCommit()) {
            SQLNonTransientException refusal = new SQLNonTransientException("ratelimiter.postgres: the DataSource "
                    + "gave a connection in the caller's transaction (not in autocommit), so the counter would roll "
                    + "back with it; use a non-transactional pool", "25000");
            // A configuration mistake, not an outage: calls outside transactions succeed in between, so the
            // breaker may never open and readiness may stay ok. Logged once, loudly (FailureKind.CONFIGURATION).
            throw refusal;
        }
    }

    /** Sets the network timeout only when it differs: a connection of the library's own pool keeps it. */
    private static void setNetworkTimeout(Connection driverConnection, int networkTimeout) throws SQLException {
        if (driverConnection.getNetworkTimeout() != networkTimeout) {
            driverConnection.setNetworkTimeout(DIRECT, networkTimeout);
        }
    }

    /**
     * Puts the pool's network timeout back. Not on a connection the driver closed after a timeout: that would throw
     * and hide the failure that matters.
     */
    private static void restore(Connection connection, int networkTimeout) throws SQLException {
        if (!connection.isClosed()) {
            connection.setNetworkTimeout(DIRECT, networkTimeout);
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

    private void bind(Connection connection, PreparedStatement statement, NamedStatement sql, Bucket bucket,
                      String key, long cost) throws SQLException {
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

    /** The parameters of {@link #consumeAll}: the items as parallel arrays, their windows one after another. */
    private void bindAll(Connection connection, PreparedStatement statement, List<StoreItem> items)
            throws SQLException {
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
        List<String> names = consumeAll.names();
        for (int i = 0; i < names.size(); i++) {
            int index = i + 1;
            switch (names.get(i)) {
                case "now" -> setInstant(statement, index, now);
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

    /**
     * The numbers of a counting statement ({@code count, ends_at, denied, now[, window_counts, window_ends]}).
     *
     * @return whether it was allowed
     */
    private static boolean counted(Bucket bucket, ResultSet row, long[] answer, int offset) throws SQLException {
        boolean allowed = !row.getBoolean(3);
        if (!bucket.hasSeveralWindows()) {
            // A statement that waited for the row lock behind the one that opened the window has an earlier
            // instant: its time left can exceed the window by microseconds (WindowVerdicts clamps it).
            answer[offset] = allowed ? 1 : 0;
            answer[offset + 1] = row.getLong(1);
            answer[offset + 2] = millisLeft(row, 2, 4);
            return allowed;
        }
        Instant now = row.getObject(4, OffsetDateTime.class).toInstant();
        several(bucket, allowed, now, longs(row.getArray(5)), instants(row.getArray(6)), answer, offset);
        return allowed;
    }

    /**
     * The numbers of cost 0, from the row as it is ({@code now, count, ends_at, window_seconds, window_counts,
     * window_ends}; all null without a row): allowed iff a cost-1 call would be.
     *
     * @return whether it was allowed
     */
    private static boolean checked(Bucket bucket, ResultSet row, long[] answer, int offset) throws SQLException {
        Instant now = row.getObject(1, OffsetDateTime.class).toInstant();
        long[] seconds = longs(row.getArray(4));
        int size = bucket.limits().size();
        long[] counts = new long[size];
        Instant[] ends = new Instant[size];
        if (!bucket.hasSeveralWindows()) {
            OffsetDateTime endsAt = row.getObject(3, OffsetDateTime.class);
            if (endsAt != null && seconds == null) {
                counts[0] = row.getLong(2);
                ends[0] = endsAt.toInstant();
            }
        } else if (seconds != null && Arrays.equals(seconds,
                bucket.limits().stream().mapToLong(Bucket.Limit::windowSeconds).toArray())) {
            counts = longs(row.getArray(5));
            ends = instants(row.getArray(6));
        }
        boolean allowed = true;
        for (int i = 0; i < size; i++) {
            boolean open = ends[i] != null && ends[i].isAfter(now);
            allowed &= (open ? counts[i] : 0) + 1 <= bucket.limits().get(i).limit();
        }
        several(bucket, allowed, now, counts, ends, answer, offset);
        return allowed;
    }

    /**
     * Each window's numbers, an ended window (or one never opened: a null end) with no count and its whole
     * length.
     */
    private static void several(Bucket bucket, boolean allowed, Instant now, long[] counts, Instant[] ends,
                                long[] answer, int offset) {
        answer[offset] = allowed ? 1 : 0;
        for (int i = 0; i < bucket.limits().size(); i++) {
            Bucket.Limit limit = bucket.limits().get(i);
            boolean open = ends[i] != null && ends[i].isAfter(now);
            answer[offset + 1 + 2 * i] = open ? counts[i] : 0;
            answer[offset + 2 + 2 * i] = open ? Duration.between(now, ends[i]).toMillis() : limit.window().toMillis();
        }
    }

    private static long[] longs(java.sql.Array array) throws SQLException {
        if (array == null) {
            return null;
        }
        Object[] values = (Object[]) array.getArray();
        long[] longs = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            longs[i] = ((Number) values[i]).longValue();
        }
        return longs;
    }

    private static Instant[] instants(java.sql.Array array) throws SQLException {
        Object[] values = (Object[]) array.getArray();
        Instant[] instants = new Instant[values.length];
        for (int i = 0; i < values.length; i++) {
            instants[i] = values[i] instanceof java.sql.Timestamp timestamp ? timestamp.toInstant()
                    : ((OffsetDateTime) values[i]).toInstant();
        }
        return instants;
    }

    /**
     * The returned {@code ends_at} (column {@code endsAt}) minus the statement's instant (column {@code now}), in
     * milliseconds. PostgreSQL sends a {@code timestamptz} in binary as 8 bytes, big-endian microseconds since
     * 2000-01-01 (integer datetimes, the only build since PostgreSQL 10), and pgjdbc hands a binary column's bytes
     * out as they came once it has prepared the statement on the server (from the statement's fifth use on a
     * connection): their difference needs no calendar, where {@code getObject(OffsetDateTime)} builds a
     * {@code GregorianCalendar} per result. In text (the first uses, or {@code prepareThreshold=0} behind
     * PgBouncer) a value is never 8 bytes long, and both instants are parsed.
     */
    private static long millisLeft(ResultSet row, int endsAt, int now) throws SQLException {
        byte[] end = row.getBytes(endsAt);
        byte[] start = row.getBytes(now);
        if (end != null && start != null && end.length == Long.BYTES && start.length == Long.BYTES) {
            return ((long) BIG_ENDIAN_LONG.get(end, 0) - (long) BIG_ENDIAN_LONG.get(start, 0)) / 1_000;
        }
        return Duration.between(row.getObject(now, OffsetDateTime.class).toInstant(),
                row.getObject(endsAt, OffsetDateTime.class).toInstant()).toMillis();
    }
}
