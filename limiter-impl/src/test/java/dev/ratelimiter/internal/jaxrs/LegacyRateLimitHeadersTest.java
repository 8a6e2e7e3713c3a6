package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.cdi.call.AppliedLimits.Applied;
import dev.ratelimiter.internal.core.settings.HeaderFields;
import dev.ratelimiter.internal.core.verdict.FixedWindows;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import jakarta.ws.rs.core.MultivaluedMap;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

class LegacyRateLimitHeadersTest {

    private static final Instant NOW = Instant.parse("2026-12-06T10:00:00.250Z");

    private final Applied anonymous = new Applied(Bucket.of("api-anonymous", 120, Duration.ofMinutes(1)),
            Verdict.allowed(120, 119, Duration.ofSeconds(60)));
    private final Applied login = new Applied(Bucket.of("login", 5, Duration.ofMinutes(15)),
            Verdict.allowed(5, 4, Duration.ofMillis(899_100)));

    private static Map<String, Object> written(Set<HeaderFields> fields, List<Applied> applied) {
        MultivaluedMap<String, Object> headers = new jakarta.ws.rs.core.MultivaluedHashMap<>();
        LegacyRateLimitHeaders.write(headers, fields, applied, NOW);
        Map<String, Object> single = new TreeMap<>();
        headers.forEach((name, values) -> {
            assertThat(values).as(name).hasSize(1);
            single.put(name, values.get(0));
        });
        return single;
    }

    @Test
    @DisplayName("draft-6: RateLimit-Limit, -Remaining and -Reset of the window with the fewest attempts left, the reset in seconds rounded up")
    void draft6() {
        assertThat(written(EnumSet.of(HeaderFields.DRAFT_6), List.of(anonymous, login))).isEqualTo(Map.of(
                "RateLimit-Limit", "5", "RateLimit-Remaining", "4", "RateLimit-Reset", "900"));
    }

    @Test
    @DisplayName("x-ratelimit: X-RateLimit-Limit, -Remaining and -Reset, the reset as a Unix time in seconds rounded up")
    void xRateLimit() {
        // 10:00:00.250 + 899.1 s = 10:14:59.350, rounded up to 10:15:00
        assertThat(written(EnumSet.of(HeaderFields.X_RATELIMIT), List.of(anonymous, login))).isEqualTo(Map.of(
                "X-RateLimit-Limit", "5", "X-RateLimit-Remaining", "4",
                "X-RateLimit-Reset", Long.toString(Instant.parse("2026-12-06T10:15:00Z").getEpochSecond())));
    }

    @Test
    @DisplayName("draft-10 alone writes none of the older fields; both older families together agree")
    void families() {
        assertThat(written(EnumSet.of(HeaderFields.DRAFT_10), List.of(anonymous, login))).isEmpty();
        Map<String, Object> both = written(EnumSet.allOf(HeaderFields.class), List.of(anonymous, login));
        assertThat(both).containsEntry("RateLimit-Remaining", "4").containsEntry("X-RateLimit-Remaining", "4")
                .containsEntry("RateLimit-Limit", "5").containsEntry("X-RateLimit-Limit", "5")
                .doesNotContainKeys("RateLimit", "RateLimit-Policy");
    }

    @Test
    @DisplayName("a refusal: the refusing window, 0 left, reset when the refused call would be allowed")
    void refusal() {
        Applied refused = new Applied(login.bucket(), Verdict.denied(5, Duration.ofMillis(12_001)));
        assertThat(written(EnumSet.of(HeaderFields.DRAFT_6), List.of(anonymous, refused))).isEqualTo(Map.of(
                "RateLimit-Limit", "5", "RateLimit-Remaining", "0", "RateLimit-Reset", "13"));
    }

    @Test
    @DisplayName("a refused call of cost 10 with 5 left, beside a global window with 2 left: the refusal's window, 0 left, reset at Retry-After")
    void refusalOfACostlyCall() {
        Bucket export = Bucket.of("export", 25, Duration.ofHours(1));
        Verdict refused = FixedWindows.single(export, false, 5, Duration.ofMillis(3_000_000));
        Applied global = new Applied(anonymous.bucket(), Verdict.allowed(120, 2, Duration.ofSeconds(40)));
        assertThat(written(EnumSet.of(HeaderFields.DRAFT_6), List.of(global, new Applied(export, refused))))
                .isEqualTo(Map.of("RateLimit-Limit", "25", "RateLimit-Remaining", "0", "RateLimit-Reset", "3000"));
    }

    @Test
    @DisplayName("windows with as few attempts left: the one that ends last, across buckets and within a bucket of several windows")
    void tieEndsLast() {
        Bucket projects = Bucket.of("projects", List.of(new Limit(10, Duration.ofSeconds(1)),
                new Limit(1_000, Duration.ofHours(1))), OutagePolicy.FALLBACK);
        Verdict bothSpent = FixedWindows.of(projects, 1, true, new long[] {0, 0}, new long[] {400, 1_800_000});
        Applied hourly = new Applied(projects, bothSpent);
        Applied shortSpent = new Applied(login.bucket(), Verdict.allowed(5, 0, Duration.ofSeconds(30)));
        assertThat(LegacyRateLimitHeaders.mostRestrictive(List.of(shortSpent, hourly)))
                .contains(new LegacyRateLimitHeaders.Window(1_000, 0, Duration.ofMillis(1_800_000)));
        Applied laterRefusal = new Applied(login.bucket(), Verdict.denied(5, Duration.ofSeconds(90)));
        Applied earlierRefusal = new Applied(projects, Verdict.denied(10, Duration.ofSeconds(5)));
        assertThat(LegacyRateLimitHeaders.mostRestrictive(List.of(earlierRefusal, hourly, laterRefusal)))
                .as("refusals first, the one that ends last").contains(new LegacyRateLimitHeaders.Window(5, 0,
                        Duration.ofSeconds(90)));
        Verdict secondLeft = FixedWindows.of(projects, 1, true, new long[] {3, 990}, new long[] {400, 1_800_000});
        assertThat(LegacyRateLimitHeaders.mostRestrictive(List.of(anonymous, new Applied(projects, secondLeft))))
                .contains(new LegacyRateLimitHeaders.Window(10, 3, Duration.ofMillis(400)));
    }

    @Test
    @DisplayName("an outage's verdict, without each window's state: its own remainder and retry time, the bucket's limit")
    void outage() {
        Applied unavailable = new Applied(login.bucket(), Verdict.unavailable(5, Duration.ofSeconds(2)));
        assertThat(written(EnumSet.of(HeaderFields.DRAFT_6, HeaderFields.X_RATELIMIT), List.of(unavailable)))
                .containsEntry("RateLimit-Limit", "5").containsEntry("RateLimit-Remaining", "0")
                .containsEntry("RateLimit-Reset", "2")
                .containsEntry("X-RateLimit-Reset", Long.toString(NOW.getEpochSecond() + 3));
    }

    @Test
    @DisplayName("a field the response already carries (an application's refusal handler set it) is kept")
    void keepsOwn() {
        MultivaluedMap<String, Object> headers = new jakarta.ws.rs.core.MultivaluedHashMap<>();
        headers.putSingle("X-RateLimit-Remaining", "7");
        LegacyRateLimitHeaders.write(headers, EnumSet.of(HeaderFields.X_RATELIMIT), List.of(login), NOW);
        assertThat(headers.getFirst("X-RateLimit-Remaining")).isEqualTo("7");
        assertThat(headers.getFirst("X-RateLimit-Limit")).isEqualTo("5");
    }
}
