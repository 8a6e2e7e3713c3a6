package dev.ratelimiter;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class BucketTest {

    @Test
    @DisplayName("a valid bucket keeps its values and defaults to FALLBACK")
    void valid() {
        Bucket bucket = new Bucket("login", 5, Duration.ofMinutes(15));
        assertThat(bucket.windowSeconds()).isEqualTo(900);
        assertThat(bucket.onOutage()).isEqualTo(OutagePolicy.FALLBACK);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Login", "-login", "log in", "login_x", "a2345678901234567890123456789012345678901234567890123456789012345"})
    @DisplayName("names outside [a-z0-9][a-z0-9-]{0,63} are refused")
    void badNames(String name) {
        assertThatIllegalArgumentException().isThrownBy(() -> new Bucket(name, 5, Duration.ofMinutes(1)))
                .withMessageContaining("[a-z0-9][a-z0-9-]{0,63}");
    }

    @Test
    @DisplayName("a limit below 1 is refused with the bucket's name")
    void badLimit() {
        assertThatIllegalArgumentException().isThrownBy(() -> new Bucket("x", 0, Duration.ofMinutes(1)))
                .withMessageContaining("'x'").withMessageContaining("limit");
    }

    @ParameterizedTest
    @ValueSource(strings = {"PT0S", "PT0.5S", "PT1.5S", "PT-1S"})
    @DisplayName("windows that are not whole seconds of at least 1 s are refused")
    void badWindows(String window) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new Bucket("x", 1, Duration.parse(window)))
                .withMessageContaining("whole number of seconds");
    }

    @ParameterizedTest
    @ValueSource(strings = {"fail-open", "FAIL_OPEN", " Fail-Open "})
    @DisplayName("outage policies parse in either spelling")
    void policySpellings(String text) {
        assertThat(OutagePolicy.parse(text)).isEqualTo(OutagePolicy.FAIL_OPEN);
    }

    @Test
    @DisplayName("an unknown outage policy names the accepted values")
    void unknownPolicy() {
        assertThatIllegalArgumentException().isThrownBy(() -> OutagePolicy.parse("retry"))
                .withMessageContaining("fallback, fail-open or fail-closed");
    }
}
