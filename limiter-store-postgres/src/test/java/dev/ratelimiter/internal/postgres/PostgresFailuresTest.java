package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.spi.FailureKind;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

class PostgresFailuresTest {

    @ParameterizedTest(name = "SQLSTATE {0} is {1}")
    @DisplayName("failures are classified by SQLSTATE")
    @CsvSource({
            "25006, RECONNECT", // read-only session
            "25P02, RECONNECT", // stuck in a failed transaction
            "08006, TRANSIENT", // connection failure: the pool replaces it by itself
            "57014, TRANSIENT", // statement timeout
            "57P01, TRANSIENT", // terminated by an administrator
            "40P01, TRANSIENT", // deadlock
            "08P01, CONFIGURATION", // PgBouncer: unsupported startup parameter
            "26000, CONFIGURATION", // prepared statement lost behind a transaction pooler
            "42P01, CONFIGURATION", // no table
            "42501, CONFIGURATION", // no privilege
            "28P01, CONFIGURATION", // password refused
            "25000, CONFIGURATION"}) // a connection inside the caller's transaction
    void bySqlState(String state, FailureKind expected) {
        assertThat(PostgresFailures.classify(new SQLException("failed", state))).isEqualTo(expected);
    }

    @Test
    @DisplayName("timeouts, failures without SQLSTATE and other exceptions are transient")
    void transientByDefault() {
        assertThat(PostgresFailures.classify(new SQLTimeoutException("no connection within the deadline", "08001")))
                .isEqualTo(FailureKind.TRANSIENT);
        assertThat(PostgresFailures.classify(new SQLException("no state"))).isEqualTo(FailureKind.TRANSIENT);
        assertThat(PostgresFailures.classify(new SocketTimeoutException("Read timed out")))
                .isEqualTo(FailureKind.TRANSIENT);
    }

    @Test
    @DisplayName("a pooler's refused startup parameter, however deep among the causes, becomes a failure that says "
            + "what to set first, in the 240 characters readiness shows; any other failure is left as it is")
    void refusedStartupParameterExplained() {
        SQLException refused = new SQLException("FATAL: unsupported startup parameter: options", "08P01");
        SQLException fromPool = new java.sql.SQLTransientConnectionException(
                "HikariPool-1 - Connection is not available, request timed out after 250ms.", "08P01", refused);

        SQLException explained = PostgresFailures.explained(fromPool);

        assertThat(explained.getSQLState()).isEqualTo("08P01");
        assertThat(explained.getCause()).as("the readiness data describes the innermost cause").isNull();
        assertThat(explained.getSuppressed()).containsExactly(fromPool);
        assertThat(dev.ratelimiter.spi.ErrorDescriptions.describe(new RuntimeException(explained)))
                .contains("set ratelimiter.postgres.pgbouncer=true (docs/stores.md#pgbouncer)",
                        "unsupported startup parameter: options");
        assertThat(PostgresFailures.classify(explained)).isEqualTo(FailureKind.CONFIGURATION);

        assertThat(PostgresFailures.explained(new SQLException("FATAL: unsupported startup parameter: search_path",
                "08P01")).getMessage()).startsWith("drop the startup parameter 'search_path' from the JDBC URL");
        SQLException other = new SQLException("ERROR: relation \"rate_limit_counters\" does not exist", "42P01");
        assertThat((Object) PostgresFailures.explained(other)).as("SQLException is Iterable: compared as an object").isSameAs(other);
    }
}
