package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;
import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A transactional server pool passes the startup check and then, inside the application's transaction, hands out
 * a connection enlisted in it (not in autocommit). The limiter must not count on it, since the count would roll
 * back with the application's work: the call is a store failure that says what to fix.
 */
class PostgresJoinedTransactionTest {

    private static final Bucket BUCKET = Bucket.of("joined", 5, Duration.ofSeconds(60));
    private static final Bucket USED = Bucket.of("used", 5, Duration.ofSeconds(60));

    private static String schema;
    private static DataSource plain;

    @BeforeAll
    static void migrate() {
        schema = PostgresTarget.newSchema("joined");
        plain = PostgresTarget.dataSource(schema);
    }

    @AfterAll
    static void drop() {
        PostgresTarget.dropSchema(schema);
    }

    @Test
    @DisplayName("a connection in the caller's transaction is not used: UNAVAILABLE, nothing written, the error "
            + "says to use a non-transactional pool")
    void refused() throws SQLException {
        BackendMonitor monitor = new BackendMonitor("postgres", InstantSource.system(), RateLimiterMetrics.NONE);
        Limiter limiter = limiter(inTransaction(plain), monitor);

        assertThat(limiter.consume(BUCKET, "k1").outcome()).isEqualTo(Outcome.UNAVAILABLE);
        limiter.reset(BUCKET, "k1");

        assertThat(monitor.errors()).as("store failures").isEqualTo(2);
        monitor.degraded(); // as the breaker does when it opens: readiness then shows the last error
        assertThat(monitor.status().lastError()).hasValueSatisfying(error -> assertThat(error)
                .contains("caller's transaction").contains("non-transactional pool"));
        assertThat(rows()).as("rows in the table").isZero();
    }

    @Test
    @DisplayName("the same pool's connections in autocommit are used: the attempt is counted")
    void autocommitUsed() throws SQLException {
        BackendMonitor monitor = new BackendMonitor("postgres", InstantSource.system(), RateLimiterMetrics.NONE);
        assertThat(limiter(plain, monitor).consume(USED, "k2").outcome()).isEqualTo(Outcome.ALLOWED);

        try (Connection connection = plain.getConnection(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT count(*) FROM " + PostgresChain.TABLE
                     + " WHERE bucket = 'used'")) {
            row.next();
            assertThat(row.getLong(1)).as("rows of the bucket").isEqualTo(1);
        }
        assertThat(monitor.errors()).isZero();
    }

    private static Limiter limiter(DataSource dataSource, BackendMonitor monitor) {
        return new StoreLimiter(new PostgresStore(dataSource, PostgresChain.TABLE, Duration.ofSeconds(10), 4, Optional.empty(),
                ConnectionEviction.ABORT), monitor, RateLimiterMetrics.NONE);
    }

    /** Hands out connections as a transactional pool does inside a transaction: autocommit off. */
    private static DataSource inTransaction(DataSource pool) {
        return (DataSource) Proxy.newProxyInstance(PostgresJoinedTransactionTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    try {
                        Object result = method.invoke(pool, args);
                        if (result instanceof Connection connection) {
                            connection.setAutoCommit(false);
                        }
                        return result;
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private static long rows() throws SQLException {
        try (Connection connection = plain.getConnection(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT count(*) FROM " + PostgresChain.TABLE
                     + " WHERE bucket = 'joined'")) {
            row.next();
            return row.getLong(1);
        }
    }
}
