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
    private final boolean ownPool;
    private final PostgresRateLimiter limiter;

    private PostgresBackend(DataSource dataSource, boolean ownPool, PostgresRateLimiter limiter) {
        this.dataSource = dataSource;
        this.ownPool = ownPool;
        this.limiter = limiter;
    }

    /**
     * @param dataSource the DataSource named by the settings or the application's bean; empty to build the
     *                   library's own pool from {@code ratelimiter.postgres.url}
     */
    public static PostgresBackend start(PostgresSettings settings, Optional<DataSource> dataSource,
                                        BackendMonitor monitor, RateLimiterMetrics metrics) {
        DataSource pool = dataSource.orElseGet(() -> HikariPools.create(settings));
        // HikariCP is optional: only the library's own pool may name it.
        ConnectionEviction eviction = dataSource.isEmpty() ? HikariPools.eviction(pool) : ConnectionEviction.ABORT;
        return new PostgresBackend(pool, dataSource.isEmpty(), new PostgresRateLimiter(pool, settings.table(),
                settings.timeout(), settings.poolSize(), Optional.empty(), eviction, monitor, metrics));
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

    @Override
    public void close() {
        if (ownPool) {
            HikariPools.close(dataSource);
        }
    }
}
