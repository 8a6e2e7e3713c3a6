package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.contract.ExactnessUnderLoadContract;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.spi.StoreBatching;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The exactness cases on PostgreSQL, in a schema of this class's own, on the database's time: with waiting
 * decisions sharing one statement (the migration's function, {@code ratelimiter.postgres.batching}, the default) and without.
 * The deadline is 30 s: the cases check counts, not speed, on a loaded 2-core machine.
 */
class PostgresExactnessTest {

    private static String schema;
    private static com.zaxxer.hikari.HikariDataSource dataSource;

    @BeforeAll
    static void migrate() {
        schema = PostgresTarget.newSchema("exactness");
        dataSource = PostgresTarget.pool(schema, 32);
    }

    @AfterAll
    static void drop() {
        dataSource.close();
        PostgresTarget.dropSchema(schema);
    }

    private static Limiter limiter(boolean batching) {
        PostgresSettings settings = new PostgresSettings(Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), "rate_limit_counters", Duration.ofSeconds(30), Duration.ofMinutes(5), 32, false,
                batching);
        Optional<StoreBatching> batches = PostgresStore.batching(settings);
        PostgresStore store = new PostgresStore(dataSource, settings.table(), settings.timeout(),
                settings.poolSize(), Optional.empty(), ConnectionEviction.ABORT, false, batches);
        StoreLimiter limiter = new StoreLimiter(store,
                new BackendMonitor("postgres", InstantSource.system(), RateLimiterMetrics.NONE),
                RateLimiterMetrics.NONE);
        assertThat(limiter.batching()).isEqualTo(batching);
        return limiter;
    }

    @Nested
    class BatchingOn extends ExactnessUnderLoadContract {
        @Override
        protected Limiter newLimiter() {
            return limiter(true);
        }
    }

    @Nested
    class BatchingOff extends ExactnessUnderLoadContract {
        @Override
        protected Limiter newLimiter() {
            return limiter(false);
        }
    }
}
