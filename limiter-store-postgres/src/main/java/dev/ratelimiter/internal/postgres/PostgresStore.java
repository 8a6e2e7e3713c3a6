package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.Sweepable;
import dev.ratelimiter.spi.FailureKind;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreBatching;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.StoreRefund;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Fixed windows, token buckets, sliding windows and concurrency permits in a PostgreSQL table
 * (docs/stores.md#the-postgresql-backend):
 * each call is one statement on one connection of a non-transactional pool, with no explicit transaction and no advisory lock,
 * PostgreSQL's row lock serialising concurrent attempts on a key from any number of processes. The store composes
 * parts of one job each:
 * {@link CounterStatements} (the SQL of each statement, the rules of the windows, and how a call binds its values),
 * {@link ConnectionRunner} (the bulkhead, the network timeout of each call, the eviction of a connection no later
 * call could use), {@link CounterRows} (a returned row as the SPI's numbers) and {@link CounterSweep} (deleting the
 * rows whose windows have ended); a concurrency bucket's permits are {@link PermitStatements}' (taken, given back and
 * renewed by statements of their own, in the same table).
 *
 * <p>A failure of {@link #consume}, {@link #refund}, {@link #take}, {@link #giveBack}, {@link #renew},
 * {@link #reset} or {@link #probe} is thrown as a
 * {@link StoreException} classified by {@link PostgresFailures} (the library answers it {@code UNAVAILABLE} and
 * reports it, docs/architecture.md#the-outage-chain); nothing is thrown out of {@link #sweep}. A failed connection leaves its
 * pool, before the exception is thrown, when no later call could use it ({@link FailureKind#RECONNECT}).
 */
public final class PostgresStore implements RateLimitStore, Sweepable {

    /** The most calls one statement carries: enough to amortise a round trip and a commit, few enough rows locked. */
    static final int MAX_CALLS_PER_ROUND_TRIP = 64;
    /**
     * Statements of waiting calls in flight at once: two, so the database (one process per connection) works on one
     * while the next fills (docs/stores.md#batching); not tuned further.
     */
    static final int ROUND_TRIPS_IN_FLIGHT = 2;

    private final String table;
    private final ConnectionRunner connections;
    private final CounterStatements statements;
    private final CounterParameters parameters;
    private final CounterSweep sweep;
    private final PermitStatements permits;
    private final DataSource checked;
    private final Runnable closing;
    private final Optional<StoreBatching> batching;
    private final DecideFunction function;

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
        this(dataSource, table, timeout, permits, boundClock, eviction, ownPool, Optional.empty());
    }

    /**
     * A store on a pool it does not own that calls {@code function} instead of {@link DecideFunction#CURRENT}: a
     * replica of another version of the library, for tests of a rolling upgrade (docs/stores.md#upgrades). The other
     * parameters are those above.
     */
    PostgresStore(DataSource dataSource, String table, Duration timeout, int permits,
                  Optional<InstantSource> boundClock, ConnectionEviction eviction, DecideFunction function) {
        this(dataSource, dataSource, table, timeout, permits, boundClock, eviction, false, Optional.empty(),
                () -> { }, function, boundClock.orElse(InstantSource.system()));
    }

    /**
     * A store on a pool it does not own, with batching as given; the other parameters are those above.
     *
     * @param dataSource a non-transactional pool (autocommit, READ COMMITTED)
     * @param table      the counter table, already validated as an identifier
     * @param timeout    the deadline of each call
     * @param permits    calls in flight at once (the bulkhead)
     * @param boundClock empty in production (the database's {@code statement_timestamp()}); tests bind instants
     * @param eviction   how a connection that must not be used again leaves the pool
     * @param ownPool    {@code true} when {@code dataSource} is the library's own pool
     * @param batching   how the decisions waiting for a connection share one statement; empty for none
     */
    public PostgresStore(DataSource dataSource, String table, Duration timeout, int permits,
                         Optional<InstantSource> boundClock, ConnectionEviction eviction, boolean ownPool,
                         Optional<StoreBatching> batching) {
        this(dataSource, dataSource, table, timeout, permits, boundClock, eviction, ownPool, batching, () -> { },
                DecideFunction.CURRENT, boundClock.orElse(InstantSource.system()));
    }

    private PostgresStore(DataSource dataSource, DataSource checked, String table, Duration timeout, int permits,
                          Optional<InstantSource> boundClock, ConnectionEviction eviction, boolean ownPool,
                          Optional<StoreBatching> batching, Runnable closing, DecideFunction function,
                          InstantSource calendarClock) {
        this.batching = Objects.requireNonNull(batching, "batching");
        this.checked = checked;
        this.closing = closing;
        Objects.requireNonNull(eviction, "eviction");
        Objects.requireNonNull(dataSource, "dataSource");
        this.table = Objects.requireNonNull(table, "table");
        this.connections = new ConnectionRunner(dataSource, eviction, ownPool, timeout, permits);
        this.function = function;
        this.statements = new CounterStatements(table, boundClock, function);
        this.parameters = new CounterParameters(boundClock, calendarClock);
        this.sweep = new CounterSweep(table, statements, parameters, connections);
        this.permits = new PermitStatements(table, boundClock, parameters);
    }

    /**
     * The store of {@code settings}: on {@code dataSource}, a server's pool whose wait for a free connection is
     * then bounded by the deadline ({@link BoundedWaitDataSource}) and which {@link #close()} leaves open; or, when
     * empty, on the library's own pool from {@code ratelimiter.postgres.url}, whose own connection timeout bounds
     * that wait and which {@link #close()} closes.
     *
     * @param settings   {@code ratelimiter.postgres.*}
     * @param dataSource the DataSource named by the settings or the application's bean; empty for the own pool
     * @param clock      the library's clock, which a calendar window's boundary is worked out from
     * @return the store, with the database's time
     */
    static PostgresStore start(PostgresSettings settings, Optional<DataSource> dataSource, InstantSource clock) {
        if (dataSource.isEmpty()) {
            // HikariCP is optional: only the library's own pool may name it.
            DataSource pool = HikariPools.create(settings);
            return new PostgresStore(pool, pool, settings.table(), settings.timeout(), settings.poolSize(),
                    Optional.empty(), HikariPools.eviction(pool), true, batching(settings),
                    () -> HikariPools.close(pool), DecideFunction.CURRENT, clock);
        }
        BoundedWaitDataSource bounded = new BoundedWaitDataSource(dataSource.get(), settings.connectionWait(),
                settings.poolSize());
        return new PostgresStore(bounded, dataSource.get(), settings.table(), settings.timeout(),
                settings.poolSize(), Optional.empty(), ConnectionEviction.ABORT, false, batching(settings),
                bounded::close, DecideFunction.CURRENT, clock);
    }

    /**
     * Batching as {@code ratelimiter.postgres.batching} says: up to {@link #MAX_CALLS_PER_ROUND_TRIP} calls per
     * statement, {@link #ROUND_TRIPS_IN_FLIGHT} statements in flight (fewer if the bulkhead is smaller), and a
     * waiting call waits at most the wait for a pooled connection ({@link PostgresSettings#connectionWait()}).
     */
    static Optional<StoreBatching> batching(PostgresSettings settings) {
        return settings.batching()
                ? Optional.of(new StoreBatching(MAX_CALLS_PER_ROUND_TRIP,
                        Math.min(ROUND_TRIPS_IN_FLIGHT, settings.poolSize()), settings.connectionWait()))
                : Optional.empty();
    }

    /**
     * Problems of the DataSource and table, each saying what to change (see {@link PostgresChecks}); none yet for a
     * DataSource whose JNDI name is not bound at startup, which checks itself when it first resolves
     * ({@link LateBoundDataSource}).
     */
    List<String> check() {
        return checked instanceof LateBoundDataSource ? List.of() : PostgresChecks.check(checked, table, function);
    }

    /** The longest a call can take ({@link ConnectionRunner#deadline()}), for a thread that waits for one. */
    Duration deadline() {
        return connections.deadline();
    }

    @Override
    public long[] consume(List<StoreItem> items) throws StoreException {
        connections.acquire();
        try {
            if (items.size() == 1 && CounterStatements.hasItemStatement(items.get(0).bucket(), items.get(0).cost())) {
                StoreItem item = items.get(0);
                long[] answer = new long[StoreItem.answerLength(item.bucket())];
                connections.onConnection(connection -> decide(connection, item, answer, 0));
                return answer;
            }
            return connections.onConnection(connection -> decideCalls(connection, List.of(items)))[0];
        } catch (SQLException | RuntimeException e) {
            throw new StoreException(PostgresFailures.classify(e), e);
        } finally {
            connections.release();
        }
    }

    /**
     * Decides several calls with one statement, the migration's function (docs/stores.md#batching), inside the
     * bulkhead like any call. The function takes every row of the round trip in one (bucket, key) order, locking
     * them first when the items do not come in that order, so a batch waits for no statement that waits for it; the
     * calls are sent in that order ({@link CallOrder}), which spares the function that first statement.
     */
    @Override
    public long[][] consumeEach(List<List<StoreItem>> calls) throws StoreException {
        int[] order = CallOrder.of(calls);
        if (order == null) {
            return inBulkhead(connection -> decideCalls(connection, calls));
        }
        List<List<StoreItem>> sorted = CallOrder.sorted(calls, order);
        return CallOrder.unsorted(inBulkhead(connection -> decideCalls(connection, sorted)), order);
    }

    /** Whether and how waiting calls share a statement: off by {@code ratelimiter.postgres.batching=false}. */
    @Override
    public Optional<StoreBatching> batching() {
        return batching;
    }

    /**
     * Decides one item with one statement, writing its numbers into {@code answer} from {@code offset}.
     *
     * @return whether it was allowed
     */
    private boolean decide(Connection connection, StoreItem item, long[] answer, int offset) throws SQLException {
        Bucket bucket = item.bucket();
        long cost = item.cost();
        NamedStatement sql = statements.forItem(bucket, cost);
        try (PreparedStatement statement = connection.prepareStatement(sql.sql())) {
            parameters.bind(connection, statement, sql, bucket, item.key(), cost);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                if (cost == 0) {
                    return CounterRows.checked(bucket, row, answer, offset, parameters.windowMillis(bucket));
                }
                return switch (bucket.algorithm()) {
                    case TOKEN_BUCKET -> CounterRows.tokensCounted(bucket, row, answer, offset);
                    case SLIDING_WINDOW -> CounterRows.slidingCounted(bucket, row, answer, offset);
                    case FIXED_WINDOW -> CounterRows.counted(bucket, row, answer, offset);
                    // Never reached: forItem refuses a concurrency bucket, whose permits are never counted.
                    case CONCURRENCY -> throw new IllegalStateException("a concurrency bucket is never counted");
                };
            }
        }
    }

    /**
     * Decides calls of one or more items with one statement, the migration's function: a batch, or the several items of one
     * call (or one token bucket of several windows, or a sliding window's check or several windows) as a batch of
     * one.
     *
     * @return each call's answer of {@link #consume}, as the function gives it ({@link CounterRows#functionAnswers})
     */
    private long[][] decideCalls(Connection connection, List<List<StoreItem>> calls) throws SQLException {
        NamedStatement sql = statements.decide();
        try (PreparedStatement statement = connection.prepareStatement(sql.sql())) {
            parameters.bindDecide(connection, statement, sql, calls);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return CounterRows.functionAnswers(row, calls.size());
            }
        }
    }

    /**
     * Gives the refunds back with one statement, whatever their number ({@link CounterStatements#refund()}), inside
     * the bulkhead like a decision: a refund follows a call the application just made, and must not take the
     * connections decisions wait for.
     *
     * @param refunds one or more refunds, keys hashed
     * @throws StoreException the statement failed or its deadline passed, classified by {@link PostgresFailures}
     */
    @Override
    public void refund(List<StoreRefund> refunds) throws StoreException {
        NamedStatement sql = statements.refund();
        inBulkhead(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql.sql())) {
                parameters.bindRefund(connection, statement, sql, refunds);
                return statement.executeUpdate();
            }
        });
    }

    /**
     * Takes a permit of a concurrency bucket, or counts them for a check, with one statement
     * ({@link PermitStatements#take}), inside the bulkhead like a decision.
     */
    @Override
    public long[] take(StorePermit permit) throws StoreException {
        return inBulkhead(connection -> permits.take(connection, permit));
    }

    /** Gives permits back with one statement, whatever their number, inside the bulkhead like a refund. */
    @Override
    public void giveBack(List<StorePermit> given) throws StoreException {
        inBulkhead(connection -> {
            permits.giveBack(connection, given);
            return null;
        });
    }

    /** Renews leases with one statement, whatever their number, inside the bulkhead like a refund. */
    @Override
    public long[] renew(List<StorePermit> renewed) throws StoreException {
        return inBulkhead(connection -> permits.renew(connection, renewed));
    }

    /** Runs {@code work} on a connection inside the bulkhead; a failure is classified ({@link PostgresFailures}). */
    private <T> T inBulkhead(ConnectionRunner.ConnectionWork<T> work) throws StoreException {
        connections.acquire();
        try {
            return connections.onConnection(work);
        } catch (SQLException | RuntimeException e) {
            throw new StoreException(PostgresFailures.classify(e), e);
        } finally {
            connections.release();
        }
    }

    /** Deletes the key's rows of every algorithm, its permits' too ({@link CounterStatements#reset()}). */
    @Override
    public void reset(Bucket bucket, String key) throws StoreException {
        update(statements.reset(), bucket.name(), key, CounterStatements.TOKEN_KEY_PREFIX + key,
                CounterStatements.SLIDING_KEY_PREFIX + key, CounterStatements.PERMITS_KEY_PREFIX + key);
    }

    /** Deletes the rows whose window has ended, as {@link CounterSweep} says; never throws. */
    @Override
    public long sweep() {
        return sweep.sweep();
    }

    /**
     * One cheap round trip for the circuit breaker's probe, on the write path: an {@code UPDATE} of the counter
     * table that matches no row still needs a writable session and the table's privileges, so a read-only session
     * (a demoted writer, a standby behind the same address) fails it with SQLSTATE 25006 where {@code SELECT 1}
     * would succeed and close the breaker on a store that refuses every decision. The same statement calls the
     * function with no call to decide, the path of a sliding window's checks and several windows, of token buckets
     * of several windows and of several items: a function missing (its migration not applied) or not executable by
     * the store's role fails the probe too, so the breaker stays open instead of every such decision failing.
     *
     * @throws StoreException if the database does not take a write and the function's call within the deadline
     */
    @Override
    public void probe() throws StoreException {
        try {
            connections.onConnection(connection -> {
                try (PreparedStatement statement = connection.prepareStatement(statements.probe())) {
                    return statement.execute();
                }
            });
        } catch (SQLException | RuntimeException e) {
            throw new StoreException(PostgresFailures.classify(e), e);
        }
    }

    /** Runs an update whose parameters are {@code values}, in order, outside the bulkhead. */
    private void update(String sql, String... values) throws StoreException {
        try {
            connections.onConnection(connection -> {
                try (PreparedStatement statement = connection.prepareStatement(sql)) {
                    for (int i = 0; i < values.length; i++) {
                        statement.setString(i + 1, values[i]);
                    }
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
}
