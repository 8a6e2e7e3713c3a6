package dev.ratelimiter.internal.core.plan;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.CalendarWindow;
import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Limit;
import dev.ratelimiter.RateLimitContext;
import dev.ratelimiter.RateLimitPlan;
import dev.ratelimiter.RateLimitPlanResolver;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.internal.core.key.KeyNamespace;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics.PlanMiss;
import dev.ratelimiter.internal.core.settings.PlanCacheSettings;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class PlannerTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-03T10:00:00Z"));
    private final Bucket reports = Bucket.of("reports", 10, Duration.ofMinutes(1));
    private final Bucket pro = reports.withPlan("pro", List.of(new Limit(100, Duration.ofMinutes(1))), 0);
    private final Map<String, RateLimitPlan> tenants = new HashMap<>(Map.of("acme", RateLimitPlan.named("pro"),
            "globex", RateLimitPlan.limit(50), "initech", RateLimitPlan.named("gold")));
    private final AtomicInteger asked = new AtomicInteger();
    private final Recorded metrics = new Recorded();
    private final RateLimitPlanResolver resolver = (key, context) -> {
        asked.incrementAndGet();
        if (key.equals("broken")) {
            throw new IllegalStateException("tenant table down");
        }
        return tenants.get(key);
    };

    private Planner planner(Duration ttl) {
        return new Planner(reports, Map.of("pro", pro), resolver, "TenantPlans", new PlanCacheSettings(ttl, 100),
                clock);
    }

    private Bucket choose(Planner planner, String key, long cost) {
        Bucket cached = planner.cached(KeyNamespace.APPLICATION, key, cost, metrics);
        return cached != null ? cached
                : planner.resolve(KeyNamespace.APPLICATION, key, (RateLimitContext) null, cost, metrics);
    }

    @Test
    @DisplayName("a declared plan's limits, explicit limits, and the bucket's own for no plan")
    void choosesLimits() {
        Planner planner = planner(Duration.ofMinutes(1));
        assertThat(choose(planner, "acme", 1)).isSameAs(pro);
        Bucket globex = choose(planner, "globex", 1);
        assertThat(globex.plan()).isEqualTo(Bucket.EXPLICIT_PLAN);
        assertThat(globex.limit()).isEqualTo(50);
        assertThat(globex.window()).isEqualTo(reports.window());
        assertThat(choose(planner, "hooli", 1)).isSameAs(reports);
        assertThat(metrics.misses).containsExactly(PlanMiss.NONE);
    }

    @Test
    @DisplayName("a plan in a customer's zone: a calendar bucket's plan, or its explicit limit, in that zone, the "
            + "limits and the window kept")
    void planInZone() {
        Bucket monthly = new Bucket("quota", List.of(Limit.perCalendar(1_000, CalendarWindow.MONTH)),
                OutagePolicy.FALLBACK, Algorithm.FIXED_WINDOW, 0, Bucket.NO_PLAN, ZoneOffset.UTC);
        Bucket monthlyPro = monthly.withPlan("pro", List.of(Limit.perCalendar(100_000, CalendarWindow.MONTH)), 0);
        ZoneId tokyo = ZoneId.of("Asia/Tokyo");
        tenants.put("acme", RateLimitPlan.named("pro").inZone(tokyo));
        tenants.put("globex", RateLimitPlan.limit(50).inZone(ZoneId.of("America/New_York")));
        Planner planner = new Planner(monthly, Map.of("pro", monthlyPro), resolver, "TenantPlans",
                new PlanCacheSettings(Duration.ofMinutes(1), 100), clock);
        Bucket acme = choose(planner, "acme", 1);
        assertThat(acme.zone()).isEqualTo(tokyo);
        assertThat(acme.limits()).containsExactly(Limit.perCalendar(100_000, CalendarWindow.MONTH));
        assertThat(acme.plan()).isEqualTo("pro");
        assertThat(choose(planner, "acme", 1)).as("cached with its zone").isSameAs(acme);
        Bucket globex = choose(planner, "globex", 1);
        assertThat(globex.zone()).isEqualTo(ZoneId.of("America/New_York"));
        assertThat(globex.limits()).containsExactly(Limit.perCalendar(50, CalendarWindow.MONTH));
        assertThat(choose(planner, "hooli", 1)).isSameAs(monthly);
    }

    @Test
    @DisplayName("an undeclared plan, a throwing resolver and limits that do not fit get the bucket's own, counted")
    void missesGetOwnLimits() {
        tenants.put("umbrella", RateLimitPlan.limits(List.of(new Limit(5, Duration.ofHours(1))), 0));
        Planner planner = planner(Duration.ofMinutes(1));
        assertThat(choose(planner, "initech", 1)).isSameAs(reports);
        assertThat(choose(planner, "broken", 1)).isSameAs(reports);
        assertThat(choose(planner, "umbrella", 1)).isSameAs(reports);
        assertThat(metrics.misses).containsExactly(PlanMiss.UNDECLARED, PlanMiss.ERROR, PlanMiss.UNFIT);
    }

    @Test
    @DisplayName("explicit limits below the call's cost give the bucket's own limits for that call")
    void costAboveExplicitLimit() {
        tenants.put("tiny", RateLimitPlan.limit(2));
        Planner planner = planner(Duration.ofMinutes(1));
        assertThat(choose(planner, "tiny", 5)).isSameAs(reports);
        assertThat(choose(planner, "tiny", 2).limit()).isEqualTo(2);
        assertThat(metrics.misses).containsExactly(PlanMiss.UNFIT);
    }

    @Test
    @DisplayName("the resolver is asked once per key and ttl; a changed plan applies once the answer expires")
    void cachedPerKey() {
        Planner planner = planner(Duration.ofMinutes(1));
        for (int i = 0; i < 5; i++) {
            assertThat(choose(planner, "acme", 1)).isSameAs(pro);
        }
        assertThat(asked).hasValue(1);
        assertThat(metrics.hits).isEqualTo(4);
        assertThat(metrics.lookups).isEqualTo(5);
        tenants.put("acme", RateLimitPlan.limit(1_000));
        assertThat(choose(planner, "acme", 1)).isSameAs(pro);
        clock.advance(Duration.ofMinutes(1));
        assertThat(choose(planner, "acme", 1).limit()).isEqualTo(1_000);
        assertThat(asked).hasValue(2);
    }

    @Test
    @DisplayName("a resolver that throws is asked again on the next call; ttl 0 asks on every call")
    void failuresAndZeroTtlNotCached() {
        Planner planner = planner(Duration.ofMinutes(1));
        choose(planner, "broken", 1);
        choose(planner, "broken", 1);
        assertThat(asked).hasValue(2);
        Planner uncached = planner(Duration.ZERO);
        choose(uncached, "acme", 1);
        choose(uncached, "acme", 1);
        assertThat(asked).hasValue(4);
        assertThat(metrics.lookups).as("no cache, no look-ups counted").isEqualTo(2);
    }

    private static final class Recorded implements RateLimiterMetrics {
        final List<PlanMiss> misses = new ArrayList<>();
        int lookups;
        int hits;

        @Override
        public void planMiss(Bucket bucket, PlanMiss reason) {
            assertThat(bucket.plan()).isEqualTo(Bucket.NO_PLAN);
            misses.add(reason);
        }

        @Override
        public void planCache(boolean hit) {
            lookups++;
            hits += hit ? 1 : 0;
        }
    }
}
