package dev.ratelimiter.internal.postgres;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * A server's pool, shared with the application, whose wait for a free connection is bounded by the library's
 * deadline. The pool's own wait is the application's choice (Payara's {@code max-wait-time-in-millis} is 60 s by
 * default) and JDBC has no per-call one, so while the application's traffic holds every connection a decision
 * would wait that long. Here each {@link #getConnection()} is handed to a waiting thread and the caller waits at
 * most the deadline (at least 250 ms: {@code PostgresSettings.connectionWait()}); a connection that comes later goes straight back to the pool. At most {@code waiters}
 * threads wait at once (the bulkhead's size; idle ones end after 30 s); beyond that the call fails at once.
 *
 * <p>The handover costs a thread switch per call. A name still to be resolved ({@link LateBoundDataSource}) is
 * resolved on the caller's thread, where the application's JNDI context is.
 */
final class BoundedWaitDataSource implements DataSource, AutoCloseable {

    private final DataSource pool;
    private final long timeoutNanos;
    private final ThreadPoolExecutor waiters;

    /**
     * @param pool    the server's pool
     * @param timeout the longest wait for a connection
     * @param waiters threads that may wait for the pool at once
     */
    BoundedWaitDataSource(DataSource pool, Duration timeout, int waiters) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.timeoutNanos = timeout.toNanos();
        AtomicInteger number = new AtomicInteger();
        this.waiters = new ThreadPoolExecutor(0, waiters, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), runnable -> {
            Thread thread = new Thread(runnable, "ratelimiter-postgres-wait-" + number.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** The pool as given (for the startup checks, which may wait as the application does). */
    DataSource pool() {
        return pool;
    }

    /**
     * @throws SQLTimeoutException             when the pool has no free connection within the deadline
     * @throws SQLTransientConnectionException when every waiting thread is still waiting for the pool
     */
    @Override
    public Connection getConnection() throws SQLException {
        DataSource target = pool instanceof LateBoundDataSource late ? late.resolved() : pool;
        CompletableFuture<Connection> connection;
        try {
            connection = CompletableFuture.supplyAsync(() -> {
                try {
                    return target.getConnection();
                } catch (SQLException e) {
                    throw new CompletionException(e);
                }
            }, waiters);
        } catch (RejectedExecutionException rejected) {
            throw new SQLTransientConnectionException("the server's pool had no free connection for the "
                    + waiters.getMaximumPoolSize() + " calls still waiting for one", "08001");
        }
        try {
            return connection.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException late) {
            giveBack(connection);
            // No cause: readiness describes the innermost one, and a TimeoutException says nothing.
            throw new SQLTimeoutException("the server's pool had no free connection within "
                    + Duration.ofNanos(timeoutNanos).toMillis() + " ms", "08001");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            giveBack(connection);
            throw new SQLTransientConnectionException("interrupted while waiting for a connection", "08001", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof SQLException sql ? sql
                    : new SQLTransientConnectionException(e.getCause().toString(), "08001", e.getCause());
        }
    }

    /** A connection that arrives after its caller left goes back to the pool. */
    private static void giveBack(CompletableFuture<Connection> connection) {
        connection.thenAccept(late -> {
            try {
                late.close();
            } catch (SQLException e) {
                // the pool deals with a connection that fails to close
            }
        });
    }

    @Override
    public void close() {
        waiters.shutdownNow();
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("the library borrows with the pool's own credentials");
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("java.util.logging is not used");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return type.isInstance(this) ? type.cast(this) : pool.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || pool.isWrapperFor(type);
    }
}
