package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.spi.StoreConfig;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * How to reach PostgreSQL ({@code ratelimiter.postgres.*}). Explicit settings win: a JNDI name, else a JDBC URL
 * (a HikariCP pool of the library's own), else the application's CDI {@code DataSource} bean.
 *
 * @param dataSource    a JNDI name such as {@code jdbc/ratelimiter__nontx}
 * @param url           a JDBC URL such as {@code jdbc:postgresql://db:5432/app}
 * @param user          the URL's user
 * @param password      the URL's password
 * @param table         the counter table, optionally schema-qualified ({@code [a-z_][a-z0-9_]*} parts)
 * @param timeout       the deadline of every decision: statement timeout, network timeout and bulkhead wait; 1 ms to 10 min
 * @param sweepInterval how often ended counters are deleted, 1 s to 1 day
 * @param poolSize      the library's own pool size, and the bulkhead's permits (calls in flight at once), 1 to 1024
 * @param pgbouncer     {@code url} points at PgBouncer (either pool mode): the library's own pool sends no startup
 *                      options and prepares no named statements
 * @param batching      whether the decisions that wait for a connection share one statement (docs/stores.md#batching)
 */
public record PostgresSettings(Optional<String> dataSource, Optional<String> url, Optional<String> user,
                               Optional<String> password, String table, Duration timeout, Duration sweepInterval,
                               int poolSize, boolean pgbouncer, boolean batching) {

    /**
     * Settings with batching on, the default; the parameters are the record's.
     *
     * @param dataSource    a JNDI name
     * @param url           a JDBC URL
     * @param user          the URL's user
     * @param password      the URL's password
     * @param table         the counter table
     * @param timeout       the deadline of every decision
     * @param sweepInterval how often ended counters are deleted
     * @param poolSize      the library's own pool size and the bulkhead's permits
     * @param pgbouncer     {@code url} points at PgBouncer
     */
    public PostgresSettings(Optional<String> dataSource, Optional<String> url, Optional<String> user,
                            Optional<String> password, String table, Duration timeout, Duration sweepInterval,
                            int poolSize, boolean pgbouncer) {
        this(dataSource, url, user, password, table, timeout, sweepInterval, poolSize, pgbouncer, true);
    }

    /** The properties {@link #read} reads, relative to {@code ratelimiter.postgres.}. */
    static final Set<String> PROPERTY_NAMES = Set.of("datasource", "url", "user", "password", "table", "timeout",
            "sweep-interval", "pool-size", "pgbouncer", "batching");

    private static final Duration MIN_TIMEOUT = Duration.ofMillis(1);
    private static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);
    private static final Duration MIN_SWEEP_INTERVAL = Duration.ofSeconds(1);
    private static final Duration MAX_SWEEP_INTERVAL = Duration.ofDays(1);
    private static final int MAX_POOL_SIZE = 1_024;

    /**
     * Reads {@code ratelimiter.postgres.*} (docs/reference.md): each value out of its range, a
     * table that is not a lower-case identifier or a URL that is not PostgreSQL's is recorded as a problem in
     * {@code config} and replaced by its default, so the caller's {@link StoreConfig#check()} reports them all at
     * once.
     *
     * @param config the subtree {@code ratelimiter.postgres.*}
     * @return the settings, with defaults for what is unset or wrong
     */
    public static PostgresSettings read(StoreConfig config) {
        String table = config.string("table").orElse("rate_limit_counters");
        if (!table.matches("([a-z_][a-z0-9_]{0,62}\\.)?[a-z_][a-z0-9_]{0,62}")) {
            config.problem("table", "'" + table + "' must be a lower-case identifier, optionally "
                    + "schema-qualified, such as rate_limit_counters or limits.rate_limit_counters");
        }
        Optional<String> url = config.string("url");
        url.filter(u -> !u.startsWith("jdbc:postgresql:")).ifPresent(u ->
                config.problem("url", "must start with jdbc:postgresql:"));
        return new PostgresSettings(config.string("datasource"), url, config.string("user"),
                config.string("password"), table,
                config.duration("timeout", Duration.ofMillis(100), MIN_TIMEOUT, MAX_TIMEOUT),
                config.duration("sweep-interval", Duration.ofMinutes(5), MIN_SWEEP_INTERVAL, MAX_SWEEP_INTERVAL),
                (int) config.number("pool-size", 16, 1, MAX_POOL_SIZE), config.bool("pgbouncer", false),
                config.bool("batching", true));
    }

    /**
     * The longest wait for a connection of the pool: the timeout, but at least 250 ms, HikariCP's floor, which
     * also leaves a server's pool time to open a connection on a busy machine.
     *
     * @return the timeout, at least 250 ms
     */
    public Duration connectionWait() {
        Duration floor = Duration.ofMillis(250);
        return timeout.compareTo(floor) < 0 ? floor : timeout;
    }

    /** Hides the password. */
    @Override
    public String toString() {
        return "PostgresSettings[dataSource=" + dataSource.orElse("-") + ", url=" + url.isPresent() + ", table="
                + table + ", timeout=" + timeout + ", sweepInterval=" + sweepInterval + ", poolSize=" + poolSize
                + ", pgbouncer=" + pgbouncer + ", batching=" + batching + "]";
    }
}
