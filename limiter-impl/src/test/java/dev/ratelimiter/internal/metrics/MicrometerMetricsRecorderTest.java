package dev.ratelimiter.internal.metrics;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict.Outcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics.PlanMiss;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

class MicrometerMetricsRecorderTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MicrometerMetricsRecorder recorder = new MicrometerMetricsRecorder(registry);
    private final Bucket login = Bucket.of("login", 5, Duration.ofMinutes(15), OutagePolicy.FAIL_OPEN);
    private final AtomicBoolean degraded = new AtomicBoolean();

    @Test
    @DisplayName("every series exists at zero right after registration, tagged by bucket (and plan, reason), "
            + "backend or result only")
    void registeredAtZero() {
        recorder.register(List.of(login), Map.of(), "valkey", degraded::get);
        assertThat(registry.get("rate_limiter.fallbacks").tag("bucket", "login").counter().count()).isZero();
        assertThat(registry.get("rate_limiter.fail_open").tag("bucket", "login").counter().count()).isZero();
        assertThat(registry.get("rate_limiter.cached_denials").tag("bucket", "login").counter().count()).isZero();
        assertThat(registry.get("rate_limiter.decisions").tag("bucket", "login").tag("plan", "none")
                .tag("outcome", "denied").counter().count()).isZero();
        assertThat(registry.get("rate_limiter.plan_misses").tag("bucket", "login").tag("reason", "error").counter()
                .count()).isZero();
        assertThat(registry.get("rate_limiter.plan_cache_lookups").tag("result", "hit").counter().count()).isZero();
        assertThat(registry.get("rate_limiter.backend_errors").tag("backend", "valkey").counter().count()).isZero();
        assertThat(registry.get("rate_limiter.degraded").tag("backend", "valkey").gauge().value()).isZero();
        assertThat(registry.get("rate_limiter.backend").tag("backend", "valkey").timer().count()).isZero();
    }

    @Test
    @DisplayName("events move their series; the degraded gauge follows the backend's state")
    void eventsCounted() {
        recorder.register(List.of(login), Map.of(), "valkey", degraded::get);
        recorder.fallback(login);
        recorder.failOpen(login);
        recorder.failOpen(login);
        recorder.decision(login, Outcome.ALLOWED);
        recorder.cachedDenial(login);
        recorder.nearLimit(login);
        recorder.nearLimit(login);
        recorder.refund(login, true);
        recorder.refund(login, false);
        recorder.refund(login, false);
        recorder.settlement(login, 1_200, true);
        recorder.settlement(login, 300, false);
        recorder.backendError("valkey");
        recorder.backendCall("valkey", 1_500_000);
        degraded.set(true);

        assertThat(registry.get("rate_limiter.fallbacks").counter().count()).isEqualTo(1);
        assertThat(registry.get("rate_limiter.fail_open").counter().count()).isEqualTo(2);
        assertThat(registry.get("rate_limiter.cached_denials").counter().count()).isEqualTo(1);
        assertThat(registry.get("rate_limiter.near_limit").tag("bucket", "login").counter().count()).isEqualTo(2);
        assertThat(registry.get("rate_limiter.refunds").tag("outcome", "given").counter().count()).isEqualTo(1);
        assertThat(registry.get("rate_limiter.refunds").tag("outcome", "dropped").counter().count()).isEqualTo(2);
        assertThat(registry.get("rate_limiter.settlements").tag("outcome", "settled").counter().count()).isEqualTo(1);
        assertThat(registry.get("rate_limiter.settlements").tag("outcome", "dropped").counter().count()).isEqualTo(1);
        assertThat(registry.get("rate_limiter.settled_cost").tag("bucket", "login").counter().count())
                .isEqualTo(1_500);
        assertThat(registry.get("rate_limiter.decisions")
                .tag("plan", "none").tag("outcome", "allowed").counter().count()).isEqualTo(1);
        assertThat(registry.get("rate_limiter.backend_errors").counter().count()).isEqualTo(1);
        assertThat(registry.get("rate_limiter.degraded").gauge().value()).isEqualTo(1);
        assertThat(registry.get("rate_limiter.backend").timer().count()).isEqualTo(1);
    }

    @Test
    @DisplayName("every meter has a description; the timer is in seconds, counts and the flag have no base unit "
            + "(which Prometheus naming would append to the series' name)")
    void descriptionsAndUnits() {
        recorder.register(List.of(login), Map.of(), "valkey", degraded::get);
        java.util.concurrent.atomic.AtomicInteger rejected = new java.util.concurrent.atomic.AtomicInteger();
        recorder.rejectedSettings(rejected::get);
        // decisions: 2 plan labels (none, explicit) x 7 outcomes; 6 other counts of the bucket, 3 of its
        // settlements; 4 plan misses; 2 plan cache results; the backend's errors, flag and timer; the settings a
        // reload kept out
        assertThat(registry.getMeters()).hasSize(14 + 6 + 3 + 4 + 2 + 3 + 1).allSatisfy(meter ->
                assertThat(meter.getId().getDescription()).as(meter.getId().getName()).isNotBlank());
        assertThat(registry.get("rate_limiter.decisions")
                .tag("plan", "none").tag("outcome", "denied").counter().getId().getDescription())
                .isEqualTo(Series.DECISIONS.description());
        assertThat(registry.get("rate_limiter.backend").timer().getId().getBaseUnit()).isEqualTo("seconds");
        rejected.set(2);
        assertThat(registry.get("rate_limiter.rejected_settings").gauge().value()).isEqualTo(2);
        assertThat(registry.getMeters()).filteredOn(meter -> !meter.getId().getName().equals("rate_limiter.backend"))
                .allSatisfy(meter -> assertThat(meter.getId().getBaseUnit()).as(meter.getId().getName()).isNull());
    }

    @Test
    @DisplayName("a shadow bucket's would-be refusals have their own outcomes, at zero from the start, apart from denied")
    void shadowOutcomes() {
        recorder.register(List.of(login), Map.of(), "valkey", degraded::get);
        assertThat(registry.get("rate_limiter.decisions").tag("bucket", "login").tag("outcome", "shadow_denied")
                .counter().count()).isZero();

        recorder.shadowDecision(login, Outcome.DENIED);
        recorder.shadowDecision(login, Outcome.DENIED);
        recorder.shadowDecision(login, Outcome.UNAVAILABLE);

        assertThat(registry.get("rate_limiter.decisions")
                .tag("plan", "none").tag("outcome", "shadow_denied").counter().count())
                .isEqualTo(2);
        assertThat(registry.get("rate_limiter.decisions")
                .tag("plan", "none").tag("outcome", "shadow_unavailable").counter().count())
                .isEqualTo(1);
        assertThat(registry.get("rate_limiter.decisions")
                .tag("plan", "none").tag("outcome", "denied").counter().count()).isZero();
        assertThat(registry.get("rate_limiter.decisions")
                .tag("plan", "none").tag("outcome", "unavailable").counter().count()).isZero();
        assertThat(registry.find("rate_limiter.decisions").tag("outcome", "shadow_allowed").counters())
                .as("an allowed call of a shadow bucket is an ordinary allowed decision").isEmpty();
    }

    @Test
    @DisplayName("the lists' decisions have their own outcomes, at zero from the start, apart from allowed and denied")
    void listedOutcomes() {
        recorder.register(List.of(login), Map.of(), "valkey", degraded::get);
        assertThat(registry.get("rate_limiter.decisions").tag("bucket", "login").tag("outcome", "deny_listed")
                .counter().count()).isZero();
        assertThat(registry.get("rate_limiter.decisions").tag("bucket", "login").tag("outcome", "allow_listed")
                .counter().count()).isZero();

        recorder.listedDecision(login, true);
        recorder.listedDecision(login, true);
        recorder.listedDecision(login, false);

        assertThat(registry.get("rate_limiter.decisions")
                .tag("plan", "none").tag("outcome", "deny_listed").counter().count()).isEqualTo(2);
        assertThat(registry.get("rate_limiter.decisions")
                .tag("plan", "none").tag("outcome", "allow_listed").counter().count()).isEqualTo(1);
        assertThat(registry.get("rate_limiter.decisions")
                .tag("plan", "none").tag("outcome", "denied").counter().count()).isZero();
        assertThat(registry.get("rate_limiter.decisions")
                .tag("plan", "none").tag("outcome", "allowed").counter().count()).isZero();
    }

    @Test
    @DisplayName("decisions carry a plan tag on every series: none, each declared plan and explicit, at zero from the "
            + "start for every bucket, shadow outcomes included; each decision counts under its bucket's plan")
    void decisionsByPlan() {
        Bucket reports = Bucket.of("reports", 10, Duration.ofMinutes(1));
        recorder.register(List.of(login, reports), Map.of("reports", Set.of("free", "pro")), "valkey",
                degraded::get);
        assertThat(planLabels("login")).containsExactlyInAnyOrder("none", "explicit");
        assertThat(planLabels("reports")).containsExactlyInAnyOrder("none", "free", "pro", "explicit");
        assertThat(registry.find("rate_limiter.decisions").counters()).allSatisfy(counter ->
                assertThat(counter.getId().getTags()).extracting(io.micrometer.core.instrument.Tag::getKey)
                        .containsExactlyInAnyOrder("bucket", "plan", "outcome"));
        assertThat(registry.get("rate_limiter.decisions").tag("bucket", "reports").tag("plan", "pro")
                .tag("outcome", "shadow_denied").counter().count()).isZero();

        Bucket pro = reports.withPlan("pro", List.of(new Limit(100, Duration.ofMinutes(1))), 0);
        Bucket explicit = reports.withPlan(Bucket.EXPLICIT_PLAN, List.of(new Limit(7, Duration.ofMinutes(1))),
                0);
        recorder.decision(reports, Outcome.ALLOWED);
        recorder.decision(pro, Outcome.ALLOWED);
        recorder.decision(pro, Outcome.ALLOWED);
        recorder.decision(pro, Outcome.DENIED);
        recorder.decision(explicit, Outcome.DENIED);
        recorder.shadowDecision(pro, Outcome.DENIED);

        assertThat(decisions("reports", "none", "allowed")).isEqualTo(1);
        assertThat(decisions("reports", "pro", "allowed")).isEqualTo(2);
        assertThat(decisions("reports", "pro", "denied")).isEqualTo(1);
        assertThat(decisions("reports", "pro", "shadow_denied")).isEqualTo(1);
        assertThat(decisions("reports", "explicit", "denied")).isEqualTo(1);
        assertThat(decisions("reports", "free", "allowed")).isZero();
        assertThat(registry.find("rate_limiter.decisions").tag("bucket", "reports").counters().stream()
                .mapToDouble(io.micrometer.core.instrument.Counter::count).sum())
                .as("a sum by bucket counts each decision once").isEqualTo(6);
    }

    @Test
    @DisplayName("plan misses count per bucket and reason, plan cache look-ups per result")
    void planMissesAndCache() {
        recorder.register(List.of(login), Map.of(), "memory", degraded::get);
        recorder.planMiss(login, PlanMiss.UNDECLARED);
        recorder.planMiss(login, PlanMiss.UNDECLARED);
        recorder.planMiss(login, PlanMiss.ERROR);
        recorder.planCache(true);
        recorder.planCache(true);
        recorder.planCache(true);
        recorder.planCache(false);

        for (PlanMiss reason : PlanMiss.values()) {
            long expected = reason == PlanMiss.UNDECLARED ? 2 : reason == PlanMiss.ERROR ? 1 : 0;
            assertThat(registry.get("rate_limiter.plan_misses").tag("bucket", "login").tag("reason", reason.tag())
                    .counter().count()).as(reason.tag()).isEqualTo(expected);
        }
        assertThat(registry.get("rate_limiter.plan_cache_lookups").tag("result", "hit").counter().count())
                .isEqualTo(3);
        assertThat(registry.get("rate_limiter.plan_cache_lookups").tag("result", "miss").counter().count())
                .isEqualTo(1);
    }

    @Test
    @DisplayName("a plan label not registered never throws: it gets a series of its own, for at most "
            + "MAX_LATE_PLANS labels per bucket, past which its decisions are dropped; an unregistered bucket is not "
            + "counted")
    void unregisteredPlanLabel() {
        recorder.register(List.of(login), Map.of(), "memory", degraded::get);
        List<Limit> limits = List.of(new Limit(9, Duration.ofMinutes(15)));
        recorder.decision(login.withPlan("gold", limits, 0), Outcome.ALLOWED);
        recorder.decision(login.withPlan("gold", limits, 0), Outcome.ALLOWED);
        assertThat(decisions("login", "gold", "allowed")).isEqualTo(2);
        assertThat(decisions("login", "gold", "denied")).as("its other outcomes made with it, at zero").isZero();

        for (int i = 1; i < CounterTableRecorder.MAX_LATE_PLANS + 5; i++) {
            recorder.decision(login.withPlan("late" + i, limits, 0), Outcome.DENIED);
        }
        assertThat(planLabels("login")).hasSize(2 + CounterTableRecorder.MAX_LATE_PLANS)
                .contains("gold", "late" + (CounterTableRecorder.MAX_LATE_PLANS - 1))
                .doesNotContain("late" + CounterTableRecorder.MAX_LATE_PLANS);
        recorder.decision(Bucket.of("other", 1, Duration.ofMinutes(1)), Outcome.ALLOWED);
        recorder.planMiss(Bucket.of("other", 1, Duration.ofMinutes(1)), PlanMiss.NONE);
        assertThat(registry.find("rate_limiter.decisions").tag("bucket", "other").counters()).isEmpty();
    }

    private Set<String> planLabels(String bucket) {
        return registry.find("rate_limiter.decisions").tag("bucket", bucket).counters().stream()
                .map(counter -> counter.getId().getTag("plan")).collect(Collectors.toSet());
    }

    private double decisions(String bucket, String plan, String outcome) {
        return registry.get("rate_limiter.decisions").tag("bucket", bucket).tag("plan", plan).tag("outcome", outcome)
                .counter().count();
    }

    @Test
    @DisplayName("the degraded gauge survives garbage collection, though only the registry holds its supplier")
    void degradedGaugeHeldStrongly() {
        recorder.register(List.of(login), Map.of(), "memory", () -> degraded.get());
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        assertThat(registry.get("rate_limiter.degraded").tag("backend", "memory").gauge().value()).isZero();
    }

    @Test
    @DisplayName("a registry that forwards only its name-and-tags methods (WildFly's per-deployment registry) still "
            + "gets every series where it exports them: counts, the degraded flag, the store-call timer, the rejected "
            + "settings")
    void registryThatHidesBuilderMeters() {
        SimpleMeterRegistry server = new SimpleMeterRegistry();
        MicrometerMetricsRecorder onWildFly = new MicrometerMetricsRecorder(new ForwardingByName(server));
        java.util.concurrent.atomic.AtomicInteger rejected = new java.util.concurrent.atomic.AtomicInteger(2);

        onWildFly.register(List.of(login), Map.of(), "postgres", degraded::get);
        onWildFly.rejectedSettings(rejected::get);
        onWildFly.decision(login, Outcome.ALLOWED);
        onWildFly.backendCall("postgres", 1_500_000);
        degraded.set(true);

        assertThat(server.get("rate_limiter.decisions").tag("bucket", "login").tag("plan", "none")
                .tag("outcome", "allowed").counter().count()).isEqualTo(1);
        assertThat(server.get("rate_limiter.fallbacks").tag("bucket", "login").counter().count()).isZero();
        assertThat(server.get("rate_limiter.degraded").tag("backend", "postgres").gauge().value()).isEqualTo(1);
        assertThat(server.get("rate_limiter.backend").tag("backend", "postgres").timer().count()).isEqualTo(1);
        assertThat(server.get("rate_limiter.rejected_settings").gauge().value()).isEqualTo(2);
    }

    @Test
    @DisplayName("on such a registry, which outlives the application, closing removes every series, so the next "
            + "deployment's counts start at zero and its degraded gauge reads its own backend")
    void removedOnClose() {
        SimpleMeterRegistry server = new SimpleMeterRegistry();
        MicrometerMetricsRecorder first = new MicrometerMetricsRecorder(new ForwardingByName(server));
        first.register(List.of(login), Map.of(), "valkey", () -> true);
        first.rejectedSettings(() -> 1);
        first.fallback(login);

        first.close();

        assertThat(server.getMeters()).isEmpty();
        MicrometerMetricsRecorder second = new MicrometerMetricsRecorder(new ForwardingByName(server));
        second.register(List.of(login), Map.of(), "valkey", () -> false);
        assertThat(server.get("rate_limiter.degraded").tag("backend", "valkey").gauge().value()).isZero();
        assertThat(server.get("rate_limiter.fallbacks").tag("bucket", "login").counter().count()).isZero();
    }

    /**
     * As WildFly's {@code ApplicationRegistry}: a registry of its own for what builders register, which it never
     * lists or exports, and the name-and-tags methods forwarded to the server's registry, which it lists.
     */
    private static final class ForwardingByName extends SimpleMeterRegistry {

        private final io.micrometer.core.instrument.MeterRegistry server;

        ForwardingByName(io.micrometer.core.instrument.MeterRegistry server) {
            this.server = server;
        }

        @Override
        public io.micrometer.core.instrument.search.Search find(String name) {
            return server.find(name);
        }

        @Override
        public List<io.micrometer.core.instrument.Meter> getMeters() {
            return server.getMeters();
        }

        @Override
        public io.micrometer.core.instrument.Counter counter(String name,
                Iterable<io.micrometer.core.instrument.Tag> tags) {
            return server.counter(name, tags);
        }

        @Override
        public <T> T gauge(String name, Iterable<io.micrometer.core.instrument.Tag> tags, T state,
                java.util.function.ToDoubleFunction<T> valueFunction) {
            return server.gauge(name, tags, state, valueFunction);
        }

        @Override
        public io.micrometer.core.instrument.Meter remove(io.micrometer.core.instrument.Meter meter) {
            return server.remove(meter);
        }

        @Override
        public io.micrometer.core.instrument.Timer timer(String name,
                Iterable<io.micrometer.core.instrument.Tag> tags) {
            return server.timer(name, tags);
        }
    }
}
