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
}
