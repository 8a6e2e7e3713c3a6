package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.spi.FailureKind;

import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Classifies a failed PostgreSQL call by SQLSTATE (PostgreSQL's "Appendix A. PostgreSQL Error Codes") into the
 * {@link FailureKind} every store shares. Every kind is answered {@code UNAVAILABLE} and reported to the monitor;
 * the kinds differ in what else happens (docs/stores.md#deadlines-and-outages):
 * <ul>
 *   <li>{@link FailureKind#RECONNECT}: the connection answers, but in a state no later call can use: a read-only
 *       session (25006: a demoted writer or a standby behind the same address keeps the session read-only even
 *       after the database is writable again) or one stuck in a failed transaction (25P02). It leaves its pool
 *       ({@link ConnectionEviction}).</li>
 *   <li>{@link FailureKind#CONFIGURATION}: something only a person can fix: the table, a privilege, the login, a
 *       pool that joins transactions, a pooler that refuses the connection's startup parameters or loses its
 *       prepared statements. Logged once, loudly.</li>
 *   <li>{@link FailureKind#TRANSIENT}: a timeout, a broken connection, a busy server, and anything unknown.</li>
 * </ul>
 */
final class PostgresFailures {

    private static final Set<String> RECONNECT_STATES = Set.of("25006", "25P02");

    private static final Set<String> CONFIGURATION_STATES = Set.of(
            "25000", // our refusal of a connection inside the caller's transaction
            "08004", // our refusal of a late-bound DataSource that failed the startup checks
            "08P01", // protocol violation: PgBouncer's "unsupported startup parameter"
            "26000", // prepared statement does not exist: a transaction pooler without prepareThreshold=0
            "3D000", // no such database
            "42P01", // no such table
            "42501", // insufficient privilege
            "42883"); // no such function

    /** PgBouncer's refusal of a startup parameter it does not know, naming it. */
    private static final Pattern UNSUPPORTED_STARTUP_PARAMETER =
            Pattern.compile("unsupported startup parameter: ([\\w.-]+)");

    private PostgresFailures() {
    }

    /**
     * {@code failure}, or, when it (or a cause) is a pooler's refusal of a startup parameter, a failure of the same
     * SQLSTATE whose message names what to change: PgBouncer answers only {@code FATAL: unsupported startup
     * parameter: options}, which says nothing of {@code ratelimiter.postgres.pgbouncer} (docs/stores.md#pgbouncer).
     * The original is kept as a suppressed exception, not a cause, so the readiness data and the log, which
     * describe the innermost cause, show the explanation.
     *
     * @param failure a failed call's exception
     * @return {@code failure}, or the explained failure
     */
    static SQLException explained(SQLException failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            Matcher refused = cause.getMessage() == null ? null
                    : UNSUPPORTED_STARTUP_PARAMETER.matcher(cause.getMessage());
            if (refused != null && refused.find()) {
                String parameter = refused.group(1);
                // The fix first: readiness shows about 240 characters of it
                String message = parameter.equals("options")
                        ? "behind PgBouncer, set ratelimiter.postgres.pgbouncer=true (docs/stores.md#pgbouncer): the "
                                + "pooler refused the startup parameter 'options' (" + cause.getMessage().strip()
                                + "), which the library's own pool sends unless that is set; a server's pool or a "
                                + "JDBC URL that sets 'options' must drop it, or PgBouncer list it in "
                                + "ignore_startup_parameters"
                        : "drop the startup parameter '" + parameter + "' from the JDBC URL or the pool's "
                                + "properties, or list it in PgBouncer's ignore_startup_parameters "
                                + "(docs/stores.md#pgbouncer): the pooler refused it (" + cause.getMessage().strip()
                                + ")";
                SQLException explained = new SQLException(message, "08P01");
                explained.addSuppressed(failure);
                return explained;
            }
        }
        return failure;
    }

    /** The kind of {@code failure}, which need not be an {@link SQLException}; unknown ones are transient. */
    static FailureKind classify(Throwable failure) {
        if (!(failure instanceof SQLException sql) || failure instanceof SQLTimeoutException) {
            return FailureKind.TRANSIENT;
        }
        String state = sql.getSQLState();
        if (state == null) {
            return FailureKind.TRANSIENT;
        }
        if (RECONNECT_STATES.contains(state)) {
            return FailureKind.RECONNECT;
        }
        // 28xxx: the login was refused (password, pg_hba.conf).
        return CONFIGURATION_STATES.contains(state) || state.startsWith("28") ? FailureKind.CONFIGURATION : FailureKind.TRANSIENT;
    }
}
