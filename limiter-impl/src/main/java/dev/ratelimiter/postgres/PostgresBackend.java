package dev.ratelimiter.postgres;

import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.Sweepable;
import dev.ratelimiter.core.BackendMonitor;
import dev.ratelimiter.core.PostgresSettings;
import dev.ratelimiter.core.RateLimiterMetrics;
import dev.ratelimiter.core.StoreProbe;

import javax.sql.DataSource;
import java.util.List;
import java.util.Optional;

/**
 * The PostgreSQL backend as the CDI layer sees it: a limiter, a sweeper, a probe, the startup checks and, when
 * the library made the pool, something to close.
 */
public final class PostgresBackend implements AutoCloseable {

    private final DataSource dataSource;
    private final Runnable closing;
    private final PostgresRateLimiter limiter;

    private PostgresBackend(DataSource dataSource, Runnable closing, PostgresRateLimiter limiter) {
        this.dataSource = dataSource;
        this.closing = closing;
        this.limiter = limiter;
    }

    /**
     * @param dataSource the DataSource named by the settings or the application's bean (a server's pool, whose wait
     *                   for a free connection is then bounded by the deadline: {@link BoundedWaitDataSource});
     *                   empty to build the library's own pool from {@code ratelimiter.postgres.url}, whose own
     *                   connection timeout bounds that wait
     */
    public static PostgresBackend start(PostgresSettings settings, Optional<DataSource> dataSource,
                                        BackendMonitor monitor, RateLimiterMetrics metrics) {
        if (dataSource.isEmpty()) {
            // HikariCP is optional: only the library's own pool may name it.
            DataSource pool = HikariPools.create(settings);
            return new PostgresBackend(pool, () -> HikariPools.close(pool), limiter(settings, pool,
                    HikariPools.eviction(pool), true, monitor, metrics));
        }
        BoundedWaitDataSource bounded = new BoundedWaitDataSource(dataSource.get(), settings.connectionWait(),
                settings.poolSize());
        return new PostgresBackend(dataSource.get(), bounded::close, limiter(settings, bounded,
                ConnectionEviction.ABORT, false, monitor, metrics));
    }

    private static PostgresRateLimiter limiter(PostgresSettings settings, DataSource pool, ConnectionEviction eviction,
                                               boolean ownPool, BackendMonitor monitor, RateLimiterMetrics metrics) {
        return new PostgresRateLimiter(pool, settings.table(), settings.timeout(), settings.poolSize(),
                Optional.empty(), eviction, ownPool, monitor, metrics);
    }

    /**
     * Problems of the DataSource and table, each saying what to change (see {@link PostgresChecks}); none yet for a
     * DataSource whose JNDI name is not bound at startup, which checks itself when it first resolves
     * ({@link LateBoundDataSource}).
     */
    public List<String> check(String table) {
        return dataSource instanceof LateBoundDataSource ? List.of() : PostgresChecks.check(dataSource, table);
    }

    /** The store's limiter (answers {@code UNAVAILABLE} for its failures). */
    public RateLimiter limiter() {
        return limiter;
    }

    /** Deletes ended counters. */
    public Sweepable sweeper() {
        return limiter;
    }

    /** The breaker's probe. */
    public StoreProbe probe() {
        return limiter::probe;
    }

    /** Closes the library's own pool, or ends the threads waiting for a server's pool (which the server closes). */
    @Override
    public void close() {
        closing.run();
    }
}
