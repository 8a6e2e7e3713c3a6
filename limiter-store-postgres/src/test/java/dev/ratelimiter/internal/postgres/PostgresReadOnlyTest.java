package dev.ratelimiter.internal.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.monitor.BackendState;
import dev.ratelimiter.internal.core.settings.BreakerSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Sessions that turn read-only (SQLSTATE 25006), as after a failover that demoted the writer or put a standby behind
 * the same address: on a PostgreSQL cluster of the test's own, {@code ALTER DATABASE ... SET
 * default_transaction_read_only = on}, then the pool's sessions are ended so the pool reconnects into read-only
 * sessions. A {@code SELECT 1} probe would succeed there and close the breaker on a store that refuses every
 * decision (readiness flipped between ok and degraded); the store must stay degraded, name the SQLSTATE, leave the
 * decisions to the outage policies, drop the read-only connections, and come back once the database is writable
 * without anyone ending sessions again.
 */
class PostgresReadOnlyTest {

    // The breaker's back-off doubles from 1 s up to 4 s here, not the default 30 s: what is tested is that the store
    // comes back once the read-only connections left their pool, not how long the default back-off waits. By the time
    // the database is writable each read-only connection the server's pool still hands out fails one probe more, 4 s
    // each, before 3 successes: about half a minute, so the bound is twice that.
    private static final BreakerSettings BREAKER = new BreakerSettings(3, Duration.ofSeconds(1),
            Duration.ofSeconds(4), 3);
    private static final Duration RECOVERY = Duration.ofMinutes(1);

    private static PostgresCluster cluster;

    private PostgresChain chain;
    private HikariDataSource serverPool;

    @BeforeAll
    static void startCluster() {
        cluster = PostgresCluster.database("read_only");
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @AfterEach
    void stop() {
        cluster.execute("ALTER DATABASE " + cluster.database() + " RESET default_transaction_read_only");
        cluster.execute("TRUNCATE rate_limit_counters");
        if (chain != null) {
            chain.close();
        }
        if (serverPool != null) {
            serverPool.close();
        }
    }

    @Test
    @DisplayName("library's own pool, sessions turned read-only: degraded steadily with lastError naming SQLSTATE 25006, fallbacks and fail-closed refusals decide; writable again: ok, with the count kept in PostgreSQL")
    void ownPool() throws SQLException {
        String applicationName = "rl-read-only-own";
        chain = new PostgresChain(PostgresChain.settings(cluster.url() + "?ApplicationName=" + applicationName, 4),
                Optional.empty(), BREAKER);
        readOnlyUntilWritable(applicationName);
    }

    @Test
    @DisplayName("server's pool (the application's HikariCP DataSource), sessions turned read-only: the same, the failed connections aborted so the server's pool drops them")
    void serverPool() throws SQLException {
        String applicationName = "rl-read-only-server";
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(cluster.url() + "?ApplicationName=" + applicationName);
        config.setUsername("postgres");
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(2);
        config.setConnectionTimeout(250);
        serverPool = new HikariDataSource(config);
        chain = new PostgresChain(PostgresChain.settings(cluster.url(), 4), Optional.of(serverPool), BREAKER);
        readOnlyUntilWritable(applicationName);
    }

    private void readOnlyUntilWritable(String applicationName) throws SQLException {
        Bucket fallback = Bucket.of("read-only-fallback", 1_000, Duration.ofSeconds(300));
        Bucket failClosed = Bucket.of("read-only-closed", 1_000, Duration.ofSeconds(300), OutagePolicy.FAIL_CLOSED);
        for (int i = 1; i <= 3; i++) {
            assertThat(chain.limiter.consume(fallback, "k").remaining()).isEqualTo(1_000 - i);
        }

        cluster.execute("ALTER DATABASE " + cluster.database() + " SET default_transaction_read_only = on");
        cluster.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '"
                + applicationName + "'");

        await().atMost(Duration.ofSeconds(20)).until(() -> {
            chain.limiter.consume(fallback, "k");
            return chain.degraded();
        });
        await().atMost(Duration.ofSeconds(20)).until(() -> chain.monitor.status().lastError()
                .filter(error -> error.contains("SQLSTATE 25006")).isPresent());
        // Readiness sampled over 8 s (probes at 1, 2 and 4 s after opening): degraded at every look, naming why.
        await().during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
                .until(() -> chain.monitor.status().state() == BackendState.DEGRADED
                        && chain.monitor.status().lastError().orElse("").contains("SQLSTATE 25006"));
        long fallbacks = chain.outages.fallbacks("read-only-fallback");
        assertThat(chain.limiter.consume(fallback, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(chain.outages.fallbacks("read-only-fallback")).as("fallbacks").isEqualTo(fallbacks + 1);
        Verdict refused = chain.limiter.consume(failClosed, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.UNAVAILABLE);
        assertThat(chain.outages.failCloseds("read-only-closed")).as("fail-closed refusals").isEqualTo(1);
        assertThat(count(fallback, "k")).as("nothing written while read-only").isEqualTo(3);

        // Writable again for new sessions only: the pool's read-only sessions stay read-only, so the store comes
        // back only because the connections that failed with 25006 left their pool.
        cluster.execute("ALTER DATABASE " + cluster.database() + " RESET default_transaction_read_only");
        await().atMost(RECOVERY).until(() -> !chain.degraded());
        long reached = chain.store.calls();
        for (int i = 1; i <= 20; i++) {
            Verdict verdict = chain.limiter.consume(fallback, "k");
            assertThat(verdict.outcome()).as("decision %d after recovery", i).isEqualTo(Outcome.ALLOWED);
            assertThat(verdict.remaining()).as("the count kept in PostgreSQL").isEqualTo(1_000 - 3 - i);
        }
        assertThat(chain.store.calls()).as("calls reaching PostgreSQL again").isEqualTo(reached + 20);
        assertThat(count(fallback, "k")).isEqualTo(23);
    }

    private static long count(Bucket bucket, String key) throws SQLException {
        try (Connection connection = cluster.dataSource().getConnection();
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT count FROM rate_limit_counters WHERE bucket = ? AND key = ?")) {
            statement.setString(1, bucket.name());
            statement.setString(2, key);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? row.getLong(1) : -1;
            }
        }
    }
}
