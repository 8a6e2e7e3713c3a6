package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.cdi.runtime.LimiterRuntime;
import dev.ratelimiter.internal.core.monitor.BackendState;
import dev.ratelimiter.internal.core.monitor.BackendStatus;
import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.testing.TestServers;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The PostgreSQL backend as the CDI layer builds it from {@code ratelimiter.postgres.url}: the library's own pool,
 * the startup checks, and decisions in the table, on the tests' server ({@link TestServers#postgres()}).
 */
class PostgresCdiTest {

    private static final String URL = TestServers.postgres().url();
    private static final String USER = TestServers.postgres().user();
    private static final String PASSWORD = TestServers.postgres().password();

    private final String schema = "rl_cdi_" + UUID.randomUUID().toString().substring(0, 8);
    private CdiContainer cdi;

    private void start() {
        start(Map.of());
    }

    /** Starts on the library's own pool, with the bucket {@code login} and {@code more}, beside {@code beans}. */
    private void start(Map<String, String> more, Class<?>... beans) {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.backend", "postgres",
                "ratelimiter.postgres.url", URL + (URL.contains("?") ? "&" : "?") + "currentSchema=" + schema,
                "ratelimiter.postgres.user", USER,
                "ratelimiter.buckets.login.limit", "2",
                "ratelimiter.buckets.login.window", "PT1M"));
        if (!PASSWORD.isEmpty()) {
            properties.put("ratelimiter.postgres.password", PASSWORD);
        }
        properties.putAll(more);
        cdi = CdiContainer.start(properties, beans);
    }

    /** A method of the concurrency bucket {@code exports}: a call holds a permit from before it runs until it ends. */
    @jakarta.enterprise.context.ApplicationScoped
    public static class Exports {

        @dev.ratelimiter.RateLimited(bucket = "exports")
        public String run(@dev.ratelimiter.RateLimitKey String tenant, CountDownLatch started, CountDownLatch release)
                throws InterruptedException {
            started.countDown();
            if (!release.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
            return "exported";
        }
    }

    /** The application's own DataSource bean, as Quarkus (Agroal) offers one. */
    @jakarta.enterprise.context.ApplicationScoped
    public static class ApplicationDataSource {
        static volatile String schema;

        @jakarta.enterprise.inject.Produces
        @jakarta.enterprise.context.ApplicationScoped
        javax.sql.DataSource dataSource() {
            return dataSourceOn(schema);
        }
    }

    /**
     * An application with two DataSources, as a Quarkus application with its own default datasource and a named
     * one for the limiter: the default one here points at a schema without the table, so using it would fail.
     */
    @jakarta.enterprise.context.ApplicationScoped
    public static class TwoDataSources {
        static volatile String schema;

        @jakarta.enterprise.inject.Produces
        @jakarta.enterprise.context.ApplicationScoped
        javax.sql.DataSource applicationDataSource() {
            return dataSourceOn("public_without_table");
        }

        @jakarta.enterprise.inject.Produces
        @jakarta.enterprise.context.ApplicationScoped
        @jakarta.inject.Named("limiter-pool")
        javax.sql.DataSource limiterDataSource() {
            return dataSourceOn(schema);
        }
    }

    @AfterEach
    void stop() throws SQLException {
        if (cdi != null) {
            cdi.close();
        }
        TestNaming.uninstall();
        try (Connection connection = DriverManager.getConnection(URL, USER, PASSWORD);
             Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    @Test
    @DisplayName("without the table the application does not start, and the message names the migration")
    void missingTableFailsStartup() throws SQLException {
        try (Connection connection = DriverManager.getConnection(URL, USER, PASSWORD);
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema);
        }
        assertThatThrownBy(this::start).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.postgres.table")
                .hasMessageContaining("V1__rate_limit_counters.sql");
    }

    @Test
    @DisplayName("with the migration applied, decisions are counted in the table")
    void countsInTable() {
        migrate();
        start();
        RateLimits limits = cdi.select(RateLimits.class);
        assertThat(limits.consume("login", "alice").remaining()).isEqualTo(1);
        assertThat(limits.consume("login", "alice").remaining()).isZero();
        assertThat(limits.consume("login", "alice").outcome()).isEqualTo(Outcome.DENIED);
        limits.reset("login", "alice");
        assertThat(limits.consume("login", "alice").outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("a concurrency bucket on PostgreSQL: the application starts, two calls of a tenant hold its two "
            + "permits in one row keyed 'cp:' and the hashed key, a third is refused, and both are back once the "
            + "calls end")
    void concurrencyBucket() throws Exception {
        migrate();
        start(Map.of("ratelimiter.buckets.exports.concurrency", "2"), Exports.class);
        Exports exports = cdi.select(Exports.class);
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try {
            CountDownLatch release = new CountDownLatch(1);
            List<Future<String>> calls = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                CountDownLatch started = new CountDownLatch(1);
                calls.add(callers.submit(() -> exports.run("tenant-a", started, release)));
                assertThat(started.await(10, TimeUnit.SECONDS)).as("call %d runs", i).isTrue();
            }
            assertThatThrownBy(() -> exports.run("tenant-a", new CountDownLatch(1), new CountDownLatch(0)))
                    .isInstanceOf(RateLimitExceededException.class);
            assertThat(exports.run("tenant-b", new CountDownLatch(1), new CountDownLatch(0)))
                    .as("another tenant's permits").isEqualTo("exported");
            try (Connection connection = plainDataSource().getConnection();
                 Statement statement = connection.createStatement();
                 java.sql.ResultSet row = statement.executeQuery("SELECT key, count FROM rate_limit_counters "
                         + "WHERE bucket = 'exports' AND count > 0")) {
                assertThat(row.next()).isTrue();
                assertThat(row.getString(1)).startsWith("cp:").doesNotContain("tenant");
                assertThat(row.getLong(2)).isEqualTo(2);
                assertThat(row.next()).as("tenant-b's permit is given back").isFalse();
            }

            release.countDown();
            for (Future<String> call : calls) {
                assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("exported");
            }
            assertThat(cdi.select(RateLimits.class).usage("exports", "tenant-a").remaining()).isEqualTo(2);
            assertThat(exports.run("tenant-a", new CountDownLatch(1), new CountDownLatch(0))).isEqualTo("exported");
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    @DisplayName("a concurrency bucket on PostgreSQL: a CompletionStage's call holds its permit in the store until the "
            + "stage completes; meanwhile the next call of the key is refused, then let in")
    void permitHeldUntilTheStageCompletes() {
        migrate();
        start(Map.of("ratelimiter.buckets.exports.concurrency", "1", "ratelimiter.buckets.export-starts.limit", "5",
                "ratelimiter.buckets.export-starts.window", "PT1M"), ExportService.class);
        ExportService exports = cdi.select(ExportService.class);
        String tenant = "tenant-" + java.util.UUID.randomUUID();
        java.util.concurrent.CompletableFuture<String> running = new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.CompletionStage<String> first = exports.later(tenant, running);
        assertThat(exports.later(tenant, java.util.concurrent.CompletableFuture.completedFuture("x"))
                .toCompletableFuture()).failsWithin(java.time.Duration.ofSeconds(5))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(RateLimitExceededException.class);
        running.complete("done");
        assertThat(first.toCompletableFuture().join()).isEqualTo("done");
        assertThat(exports.later(tenant, java.util.concurrent.CompletableFuture.completedFuture("again"))
                .toCompletableFuture().join()).isEqualTo("again");
        assertThat(cdi.select(RateLimits.class).usage("exports", tenant).remaining()).isEqualTo(1);
    }

    @Test
    @DisplayName("with neither a JNDI name nor a URL, the application's CDI DataSource bean is used")
    void cdiDataSourceBean() {
        migrate();
        ApplicationDataSource.schema = schema;
        cdi = CdiContainer.start(new HashMap<>(Map.of(
                "ratelimiter.backend", "postgres",
                "ratelimiter.buckets.login.limit", "1",
                "ratelimiter.buckets.login.window", "PT1M")), ApplicationDataSource.class);
        RateLimits limits = cdi.select(RateLimits.class);
        assertThat(limits.consume("login", "carol").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limits.consume("login", "carol").outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("where there is no JNDI, ratelimiter.postgres.datasource names a CDI DataSource bean by its "
            + "qualifier's value, beside the application's default one")
    void namedCdiDataSourceBean() {
        migrate();
        TwoDataSources.schema = schema;
        cdi = CdiContainer.start(new HashMap<>(Map.of(
                "ratelimiter.backend", "postgres",
                "ratelimiter.postgres.datasource", "limiter-pool",
                "ratelimiter.buckets.login.limit", "1",
                "ratelimiter.buckets.login.window", "PT1M")), TwoDataSources.class);
        RateLimits limits = cdi.select(RateLimits.class);
        assertThat(limits.consume("login", "judy").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(limits.consume("login", "judy").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(cdi.select(LimiterRuntime.class).status().state()).isEqualTo(BackendState.OK);
    }

    @Test
    @DisplayName("with no DataSource at all, the application does not start, and the message names the properties")
    void noDataSource() {
        assertThatThrownBy(() -> CdiContainer.start(new HashMap<>(Map.of("ratelimiter.backend", "postgres"))))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.postgres.datasource or ratelimiter.postgres.url");
    }

    @Test
    @DisplayName("a JNDI name that names nothing fails the start, naming the property and the name")
    void unknownJndiName() {
        assertThatThrownBy(() -> CdiContainer.start(new HashMap<>(Map.of("ratelimiter.backend", "postgres",
                "ratelimiter.postgres.datasource", "jdbc/nowhere__nontx"))))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.postgres.datasource: no DataSource at JNDI name 'jdbc/nowhere__nontx'");
    }

    @Test
    @DisplayName("a server's JNDI name that is not bound fails the start even where names can bind late: only an "
            + "application's own names (java:app/...) are waited for")
    void unboundGlobalJndiName() {
        TestNaming.install();
        assertThatThrownBy(() -> startOnJndi("jdbc/typo__nontx"))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.postgres.datasource: no DataSource at JNDI name 'jdbc/typo__nontx'");
    }

    @Test
    @DisplayName("a JNDI name bound only after startup (as Payara binds an application's own pool) is looked up on "
            + "use, and decisions are counted in its table")
    void jndiNameBoundAfterStartup() {
        migrate();
        TestNaming.install();
        startOnJndi("java:app/jdbc/late");
        TestNaming.bind("java:app/jdbc/late", plainDataSource());
        RateLimits limits = cdi.select(RateLimits.class);
        assertThat(limits.consume("login", "dave").remaining()).isEqualTo(1);
        assertThat(limits.consume("login", "dave").remaining()).isZero();
        assertThat(limits.consume("login", "dave").outcome()).isEqualTo(Outcome.DENIED);
        assertThat(cdi.select(LimiterRuntime.class).status().state()).isEqualTo(BackendState.OK);
    }

    @Test
    @DisplayName("a JNDI name bound after startup to a pool not in autocommit is checked when it resolves: the "
            + "store is refused, the fallback decides, and the state says what to change")
    void jndiNameBoundAfterStartupIsChecked() {
        migrate();
        TestNaming.install();
        startOnJndi("java:app/jdbc/late-tx");
        TestNaming.bind("java:app/jdbc/late-tx", transactionalDataSource(plainDataSource()));
        RateLimits limits = cdi.select(RateLimits.class);
        for (String login : List.of("erin", "frank", "grace")) { // the breaker opens after 3 failed calls
            assertThat(limits.consume("login", login).outcome()).as(login).isEqualTo(Outcome.ALLOWED); // fallback
        }
        BackendStatus status = cdi.select(LimiterRuntime.class).status();
        assertThat(status.state()).isEqualTo(BackendState.DEGRADED);
        assertThat(status.lastError()).hasValueSatisfying(error -> assertThat(error).contains("not in autocommit"));
        assertThat(rows()).isZero();
    }

    private void migrate() {
        Flyway.configure().dataSource(URL, USER, PASSWORD).schemas(schema).createSchemas(true)
                .locations("classpath:db/ratelimiter/postgres").table("flyway_ratelimiter_history").load().migrate();
    }

    private void startOnJndi(String name) {
        cdi = CdiContainer.start(new HashMap<>(Map.of(
                "ratelimiter.backend", "postgres",
                "ratelimiter.postgres.datasource", name,
                "ratelimiter.buckets.login.limit", "2",
                "ratelimiter.buckets.login.window", "PT1M")));
    }

    private javax.sql.DataSource plainDataSource() {
        return dataSourceOn(schema);
    }

    /** A plain (unpooled) DataSource on the test server with {@code schema} first in the search path. */
    private static javax.sql.DataSource dataSourceOn(String schema) {
        org.postgresql.ds.PGSimpleDataSource dataSource = new org.postgresql.ds.PGSimpleDataSource();
        dataSource.setUrl(URL);
        dataSource.setUser(USER);
        dataSource.setPassword(PASSWORD);
        dataSource.setCurrentSchema(schema);
        return dataSource;
    }

    /** A pool that hands out connections in a transaction, as a transactional server pool would. */
    private static javax.sql.DataSource transactionalDataSource(javax.sql.DataSource plain) {
        return (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(PostgresCdiTest.class.getClassLoader(),
                new Class<?>[] {javax.sql.DataSource.class}, (proxy, method, args) -> {
                    try {
                        Object result = method.invoke(plain, args);
                        if (result instanceof Connection connection) {
                            connection.setAutoCommit(false);
                        }
                        return result;
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private long rows() {
        try (Connection connection = plainDataSource().getConnection();
             Statement statement = connection.createStatement();
             java.sql.ResultSet row = statement.executeQuery("SELECT count(*) FROM rate_limit_counters")) {
            row.next();
            return row.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
