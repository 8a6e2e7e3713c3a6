package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.CalendarWindow;
import dev.ratelimiter.Limit;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.cdi.call.AppliedLimits.Applied;
import dev.ratelimiter.internal.core.verdict.FixedWindows;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitHeadersTest {

    private final Applied anonymous = new Applied(Bucket.of("api-anonymous", 120, Duration.ofMinutes(1)),
            Verdict.allowed(120, 119, Duration.ofSeconds(60)));
    private final Applied login = new Applied(Bucket.of("login", 5, Duration.ofMinutes(15)),
            Verdict.denied(5, Duration.ofMillis(899_100)));

    @Test
    @DisplayName("one policy: draft-ietf-httpapi-ratelimit-headers-10 items with q, w and r, t")
    void onePolicy() {
        assertThat(RateLimitHeaders.policy(List.of(anonymous))).isEqualTo("\"api-anonymous\";q=120;w=60");
        assertThat(RateLimitHeaders.rateLimit(List.of(anonymous))).isEqualTo("\"api-anonymous\";r=119;t=60");
    }

    @Test
    @DisplayName("a calendar window: no w (a month has no one length), and t counts to the boundary, 23 days and 1 s")
    void calendarWindow() {
        Bucket reports = Bucket.of("reports", List.of(Limit.perCalendar(100_000, CalendarWindow.MONTH)),
                OutagePolicy.FALLBACK);
        Applied monthly = new Applied(reports, Verdict.allowed(100_000, 99_999,
                Duration.ofDays(23).plusMillis(500)));
        assertThat(RateLimitHeaders.policy(List.of(monthly, anonymous)))
                .isEqualTo("\"reports\";q=100000, \"api-anonymous\";q=120;w=60");
        assertThat(RateLimitHeaders.rateLimit(List.of(monthly))).isEqualTo("\"reports\";r=99999;t=1987201");
    }

    @Test
    @DisplayName("a concurrency bucket: q its permits and no w (it counts calls in flight, not a window); r the permits "
            + "free and t 1, the wait its refusal states")
    void concurrencyBucket() {
        Bucket exports = Bucket.concurrency("exports", 2, Duration.ofSeconds(30), OutagePolicy.FALLBACK);
        Applied busy = new Applied(exports, dev.ratelimiter.internal.core.verdict.Permits.verdict(exports, false, 2));
        assertThat(RateLimitHeaders.policy(List.of(busy, anonymous)))
                .isEqualTo("\"exports\";q=2, \"api-anonymous\";q=120;w=60");
        assertThat(RateLimitHeaders.rateLimit(List.of(busy))).isEqualTo("\"exports\";r=0;t=1");
    }

    @Test
    @DisplayName("several policies form one list, in the order they were consulted; t rounds up")
    void severalPolicies() {
        assertThat(RateLimitHeaders.policy(List.of(anonymous, login)))
                .isEqualTo("\"api-anonymous\";q=120;w=60, \"login\";q=5;w=900");
        assertThat(RateLimitHeaders.rateLimit(List.of(anonymous, login)))
                .isEqualTo("\"api-anonymous\";r=119;t=60, \"login\";r=0;t=900");
    }

    @Test
    @DisplayName("a bucket of several windows: one item per window named <bucket>-<window>, shortest first, each with its own r and t")
    void severalWindows() {
        Bucket projects = Bucket.of("projects", List.of(new Limit(1_000, Duration.ofHours(1)),
                new Limit(10, Duration.ofSeconds(1))), dev.ratelimiter.OutagePolicy.FALLBACK);
        Verdict verdict = FixedWindows.of(projects, 1, true, new long[] {9, 999},
                new long[] {1_000, 3_599_500});
        List<Applied> applied = List.of(new Applied(projects, verdict), anonymous);
        assertThat(RateLimitHeaders.policy(applied))
                .isEqualTo("\"projects-1s\";q=10;w=1, \"projects-1h\";q=1000;w=3600, \"api-anonymous\";q=120;w=60");
        assertThat(RateLimitHeaders.rateLimit(applied))
                .isEqualTo("\"projects-1s\";r=9;t=1, \"projects-1h\";r=999;t=3600, \"api-anonymous\";r=119;t=60");
    }

    @Test
    @DisplayName("an outage's verdict of a bucket of several windows carries no window state: every window shows its r and t")
    void severalWindowsUnavailable() {
        Bucket projects = Bucket.of("projects", List.of(new Limit(10, Duration.ofSeconds(1)),
                new Limit(1_000, Duration.ofMinutes(90))), dev.ratelimiter.OutagePolicy.FAIL_CLOSED);
        List<Applied> applied = List.of(new Applied(projects, Verdict.unavailable(10, Duration.ofSeconds(5))));
        assertThat(RateLimitHeaders.policy(applied))
                .isEqualTo("\"projects-1s\";q=10;w=1, \"projects-90m\";q=1000;w=5400");
        assertThat(RateLimitHeaders.rateLimit(applied)).isEqualTo("\"projects-1s\";r=0;t=5, \"projects-90m\";r=0;t=5");
    }
}
