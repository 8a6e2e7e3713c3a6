package dev.ratelimiter.spi;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

class ErrorDescriptionsTest {

    @Test
    @DisplayName("the innermost cause's type and message, without addresses, ports or credentials")
    void sanitized() {
        Exception failure = new RuntimeException("wrapper", new IOException(
                "Failed to connect to redis://admin:s3cret@cache.internal:6380 at 10.0.0.7 and [2001:db8::5]:6379, password=s3cret"));
        String description = ErrorDescriptions.describe(failure);
        assertThat(description).startsWith("IOException: Failed to connect to")
                .doesNotContain("s3cret").doesNotContain("admin").doesNotContain("cache.internal")
                .doesNotContain("10.0.0.7").doesNotContain("2001:db8").doesNotContain("6380");
    }

    @Test
    @DisplayName("a failure without a message is its type")
    void typeOnly() {
        assertThat(ErrorDescriptions.describe(new java.net.SocketTimeoutException())).isEqualTo("SocketTimeoutException");
    }

    @Test
    @DisplayName("a database failure names its SQLSTATE before the server's message")
    void sqlState() {
        assertThat(ErrorDescriptions.describe(new java.sql.SQLException(
                "ERROR: cannot execute INSERT in a read-only transaction", "25006")))
                .isEqualTo("SQLException [SQLSTATE 25006]: ERROR: cannot execute INSERT in a read-only transaction");
    }
}
