package dev.ratelimiter.internal.core.decision;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.verdict.FixedWindows;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class NearLimitTest {

    private static final Bucket TEN = Bucket.of("exports", 10, Duration.ofMinutes(1));

    @Test
    @DisplayName("limit 10 at 20 %: the 9th call (1 left) crosses, the 10th is near without crossing, the 8th is clear")
    void crossingOfAFixedWindow() {
        assertThat(NearLimit.near(TEN, Verdict.allowed(10, 2, Duration.ofSeconds(30)), 20)).isFalse();
        Verdict ninth = Verdict.allowed(10, 1, Duration.ofSeconds(30));
        assertThat(NearLimit.near(TEN, ninth, 20)).isTrue();
        assertThat(NearLimit.crossed(TEN, ninth, 0, 1, 20)).isTrue();
        Verdict tenth = Verdict.allowed(10, 0, Duration.ofSeconds(30));
        assertThat(NearLimit.near(TEN, tenth, 20)).isTrue();
        assertThat(NearLimit.crossed(TEN, tenth, 0, 1, 20)).isFalse();
    }

    @Test
    @DisplayName("a call of cost 5 that jumps from 6 left to 1 crosses; cost 0 crosses nothing; a refusal is never near")
    void costsAndRefusals() {
        Verdict jumped = Verdict.allowed(10, 1, Duration.ofSeconds(30));
        assertThat(NearLimit.crossed(TEN, jumped, 0, 5, 20)).isTrue();
        assertThat(NearLimit.crossed(TEN, jumped, 0, 0, 20)).isFalse();
        assertThat(NearLimit.near(TEN, Verdict.denied(10, Duration.ofSeconds(30)), 20)).isFalse();
        assertThat(NearLimit.near(TEN, jumped, 0)).as("0 %: off").isFalse();
    }

    @Test
    @DisplayName("several windows: each window crosses on its own, both in one call; a token bucket's capacity is its burst")
    void severalWindowsAndTokens() {
        Bucket projects = Bucket.of("projects", List.of(new Limit(10, Duration.ofSeconds(10)),
                new Limit(100, Duration.ofHours(1))), OutagePolicy.FALLBACK);
        Verdict hourlyCrossed = FixedWindows.of(projects, 1, true, new long[] {5, 19}, new long[] {5_000, 60_000});
        assertThat(NearLimit.crossed(projects, hourlyCrossed, 0, 1, 20)).isFalse();
        assertThat(NearLimit.crossed(projects, hourlyCrossed, 1, 1, 20)).isTrue();
        Verdict bothCrossed = FixedWindows.of(projects, 1, true, new long[] {1, 19}, new long[] {5_000, 60_000});
        assertThat(NearLimit.crossed(projects, bothCrossed, 0, 1, 20)).isTrue();
        assertThat(NearLimit.crossed(projects, bothCrossed, 1, 1, 20)).isTrue();
        Bucket reports = Bucket.of("reports", List.of(new Limit(50, Duration.ofMinutes(1))), OutagePolicy.FALLBACK,
                Algorithm.TOKEN_BUCKET, 10);
        assertThat(NearLimit.capacity(reports, 0)).isEqualTo(10);
        assertThat(NearLimit.near(reports, Verdict.allowed(50, 1, Duration.ofSeconds(5)), 20)).isTrue();
        assertThat(NearLimit.near(reports, Verdict.allowed(50, 2, Duration.ofSeconds(5)), 20)).isFalse();
    }

    @Property
    @Label("calls of any costs through one fixed window: exactly one crosses, if the window ever goes below the share")
    void exactlyOneCrossing(@ForAll @LongRange(min = 1, max = 1_000) long limit,
                            @ForAll @IntRange(min = 1, max = 100) int percent,
                            @ForAll @LongRange(min = 1, max = 50) long cost) {
        long remaining = limit;
        int crossings = 0;
        boolean everNear = false;
        while (remaining >= cost) {
            remaining -= cost;
            Verdict verdict = Verdict.allowed(limit, remaining, Duration.ofSeconds(1));
            Bucket bucket = Bucket.of("b", limit, Duration.ofMinutes(1));
            everNear |= NearLimit.near(bucket, verdict, percent);
            if (NearLimit.near(bucket, verdict, percent) && NearLimit.crossed(bucket, verdict, 0, cost, percent)) {
                crossings++;
            }
        }
        assertThat(crossings).isEqualTo(everNear ? 1 : 0);
    }
}
