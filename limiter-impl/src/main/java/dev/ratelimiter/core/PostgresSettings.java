package dev.ratelimiter.core;

import java.time.Duration;
import java.util.Optional;

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
 */
public record PostgresSettings(Optional<String> dataSource, Optional<String> url, Optional<String> user,
                               Optional<String> password, String table, Duration timeout, Duration sweepInterval,
                               int poolSize, boolean pgbouncer) {

    /**
     * The longest wait for a connection of the pool: the timeout, but at least 250 ms, HikariCP's floor, which
     * also leaves a server's pool time to open a connection on a busy machine.
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
                + ", pgbouncer=" + pgbouncer + "]";
    }
}
