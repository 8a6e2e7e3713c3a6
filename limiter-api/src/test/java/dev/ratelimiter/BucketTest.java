package dev.ratelimiter;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BucketTest {

    @Test
    @DisplayName("a valid bucket keeps its values and defaults to FALLBACK")
    void valid() {
        Bucket bucket = Bucket.of("login", 5, Duration.ofMinutes(15));
        assertThat(bucket.windowSeconds()).isEqualTo(900);
        assertThat(bucket.onOutage()).isEqualTo(OutagePolicy.FALLBACK);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Login", "-login", "log in", "login_x", "a2345678901234567890123456789012345678901234567890123456789012345"})
    @DisplayName("names outside [a-z0-9][a-z0-9-]{0,63} are refused")
    void badNames(String name) {
        assertThatIllegalArgumentException().isThrownBy(() -> Bucket.of(name, 5, Duration.ofMinutes(1)))
                .withMessageContaining("[a-z0-9][a-z0-9-]{0,63}");
    }

    @Test
    @DisplayName("a limit below 1 is refused with the bucket's name")
    void badLimit() {
        assertThatIllegalArgumentException().isThrownBy(() -> Bucket.of("x", 0, Duration.ofMinutes(1)))
                .withMessageContaining("'x'").withMessageContaining("limit");
    }

    @ParameterizedTest
    @ValueSource(strings = {"PT0S", "PT0.5S", "PT1.5S", "PT-1S"})
    @DisplayName("windows that are not whole seconds of at least 1 s are refused")
    void badWindows(String window) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> Bucket.of("x", 1, Duration.parse(window)))
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

    @Test
    @DisplayName("several windows are kept shortest first; limit() and window() are the shortest's, smallestLimit() the least of all")
    void severalWindows() {
        Bucket bucket = Bucket.of("projects", List.of(new Limit(1_000, Duration.ofHours(1)),
                new Limit(10, Duration.ofSeconds(1)), new Limit(5, Duration.ofDays(1))),
                OutagePolicy.FAIL_OPEN);
        assertThat(bucket.limits()).extracting(Limit::window)
                .containsExactly(Duration.ofSeconds(1), Duration.ofHours(1), Duration.ofDays(1));
        assertThat(bucket.limit()).isEqualTo(10);
        assertThat(bucket.window()).isEqualTo(Duration.ofSeconds(1));
        assertThat(bucket.smallestLimit()).isEqualTo(5);
        assertThat(bucket.hasSeveralWindows()).isTrue();
        assertThat(Bucket.of("login", 5, Duration.ofMinutes(15)).limits())
                .containsExactly(new Limit(5, Duration.ofMinutes(15)));
    }

    @Test
    @DisplayName("two windows of one length, no window or more than 8 are refused with the bucket's name")
    void badWindowLists() {
        assertThatIllegalArgumentException().isThrownBy(() -> Bucket.of("x", List.of(
                new Limit(1, Duration.ofSeconds(1)), new Limit(2, Duration.ofSeconds(1))),
                OutagePolicy.FALLBACK)).withMessageContaining("'x'").withMessageContaining("two windows of PT1S");
        assertThatIllegalArgumentException().isThrownBy(() -> Bucket.of("x", List.of(), OutagePolicy.FALLBACK))
                .withMessageContaining("from 1 to 8 windows");
        List<Limit> nine = java.util.stream.IntStream.rangeClosed(1, 9)
                .mapToObj(i -> new Limit(i, Duration.ofSeconds(i))).toList();
        assertThatIllegalArgumentException().isThrownBy(() -> Bucket.of("x", nine, OutagePolicy.FALLBACK))
                .withMessageContaining("from 1 to 8 windows");
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"PT1S,1s", "PT90S,90s", "PT10M,10m", "PT1H,1h", "PT36H,36h",
            "P1D,1d", "P366D,366d"})
    @DisplayName("a window's name is its length in the largest whole unit")
    void windowNames(String window, String name) {
        assertThat(new Limit(1, Duration.parse(window)).windowName()).isEqualTo(name);
    }

    @Test
    void planKeepsNameWindowsAndAlgorithmWithOtherLimits() {
        Bucket reports = Bucket.of("reports", List.of(new Limit(10, Duration.ofMinutes(1)),
                new Limit(100, Duration.ofHours(1))), OutagePolicy.FAIL_OPEN, Algorithm.TOKEN_BUCKET, 5);
        Bucket pro = reports.withPlan("pro", List.of(new Limit(1_000, Duration.ofHours(1)),
                new Limit(100, Duration.ofMinutes(1))), 20);
        assertThat(pro.name()).isEqualTo("reports");
        assertThat(pro.plan()).isEqualTo("pro");
        assertThat(pro.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
        assertThat(pro.onOutage()).isEqualTo(OutagePolicy.FAIL_OPEN);
        assertThat(pro.limits()).extracting(Limit::limit).containsExactly(100L, 1_000L);
        assertThat(pro.burst()).isEqualTo(20);
        assertThat(reports.plan()).isEqualTo(Bucket.NO_PLAN);
    }

    @Test
    void planWithOtherWindowsFailsNamingBucketAndPlan() {
        Bucket reports = Bucket.of("reports", 10, Duration.ofMinutes(1));
        assertThatThrownBy(() -> reports.withPlan("pro", List.of(new Limit(100, Duration.ofHours(1))), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("plan 'pro' of bucket 'reports'").hasMessageContaining("[1m]");
        assertThatThrownBy(() -> reports.withPlan("pro", List.of(new Limit(100, Duration.ofMinutes(1))), 50))
                .hasMessageContaining("plan 'pro' of bucket 'reports'").hasMessageContaining("token bucket only");
    }

    @Test
    void explicitLimitTakesTheBucketsOneWindow() {
        Bucket reports = Bucket.of("reports", 10, Duration.ofMinutes(1));
        Bucket contract = RateLimitPlan.limit(50).applyTo(reports).orElseThrow();
        assertThat(contract.plan()).isEqualTo(Bucket.EXPLICIT_PLAN);
        assertThat(contract.limits()).containsExactly(new Limit(50, Duration.ofMinutes(1)));
        assertThat(RateLimitPlan.named("pro").applyTo(reports)).isEmpty();
        Bucket twoWindows = Bucket.of("reports", List.of(new Limit(10, Duration.ofMinutes(1)),
                new Limit(100, Duration.ofHours(1))), OutagePolicy.FALLBACK);
        assertThatThrownBy(() -> RateLimitPlan.limit(50).applyTo(twoWindows))
                .hasMessageContaining("has 2 windows").hasMessageContaining("RateLimitPlan.limits");
        assertThat(RateLimitPlan.limit(50)).isEqualTo(RateLimitPlan.limit(50));
    }
}
