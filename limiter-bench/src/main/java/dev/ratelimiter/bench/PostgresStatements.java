package dev.ratelimiter.bench;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.postgres.ConnectionEviction;
import dev.ratelimiter.internal.postgres.PostgresStore;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

import static org.awaitility.Awaitility.await;

/**
 * The PostgreSQL store's own statement and schema, as the library's jar has them: the migration is read from
 * {@code db/ratelimiter/postgres/}, and the decision's statement is the one the store prepares, caught on its way
 * to the pool by a recording DataSource. Nothing is copied, so a change of the statement is measured everywhere.
 */
final class PostgresStatements {

    /** What the store binds, in order, for a one-window decision. */
    static List<String> parameterNames() {
        return dev.ratelimiter.internal.postgres.PostgresLayout.parameterNames(LibraryPaths.TABLE);
    }

    private PostgresStatements() {
    }

    /** One migration of the counter table, by its file name. */
    private static String migration(String file) throws IOException {
        try (InputStream in = PostgresStore.class.getClassLoader()
                .getResourceAsStream("db/ratelimiter/postgres/" + file)) {
            if (in == null) {
                throw new IllegalStateException("the migration " + file
                        + " is missing from limiter-store-postgres's jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Creates the counter table, its index and its function on {@code pool} with the library's migration. */
    static void migrate(DataSource pool) throws IOException {
        String migration = migration("V1__rate_limit_counters.sql");
        // A cluster just started on a loaded machine may not hand the pool its first connection within the pool's
        // timeout (about a second): the migration waits for one, as an application's start would retry.
        await().atMost(Duration.ofSeconds(60)).ignoreExceptionsInstanceOf(SQLTransientConnectionException.class)
                .until(() -> {
                    try (Connection connection = pool.getConnection(); Statement ddl = connection.createStatement()) {
                        ddl.execute(migration);
                    }
                    return true;
                });
    }

    /** The statement {@link PostgresStore#consume} prepares, made by one decision on {@code pool}. */
    static String consumeStatement(DataSource pool) {
        List<String> prepared = new ArrayList<>();
        DataSource recording = recording(pool, prepared);
        Verdict verdict = new StoreLimiter(new PostgresStore(recording, LibraryPaths.TABLE, LibraryPaths.TIMEOUT, 1,
                Optional.empty(), ConnectionEviction.ABORT), new BackendMonitor("postgres",
                InstantSource.system(), RateLimiterMetrics.NONE), RateLimiterMetrics.NONE)
                .consume(Bucket.of("statement-capture", 1, java.time.Duration.ofSeconds(1)), "capture");
        if (verdict.outcome() == Verdict.Outcome.UNAVAILABLE || prepared.isEmpty()) {
            throw new IllegalStateException("the store's statement could not be captured (verdict " + verdict + ")");
        }
        String sql = prepared.get(0);
        long placeholders = sql.chars().filter(c -> c == '?').count();
        if (placeholders != parameterNames().size()) {
            throw new IllegalStateException("the store's statement has " + placeholders + " parameters, the "
                    + "benchmark binds " + parameterNames() + ": update PostgresRig's bare loop and pgbench script: "
                    + sql);
        }
        return sql;
    }

    private static DataSource recording(DataSource pool, List<String> prepared) {
        return (DataSource) Proxy.newProxyInstance(PostgresStatements.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(pool, method, args);
                    if (result instanceof Connection connection) {
                        return Proxy.newProxyInstance(PostgresStatements.class.getClassLoader(),
                                new Class<?>[] {Connection.class}, (p, m, a) -> {
                                    if (m.getName().equals("prepareStatement")) {
                                        prepared.add((String) a[0]);
                                    }
                                    return invoke(connection, m, a);
                                });
                    }
                    return result;
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
