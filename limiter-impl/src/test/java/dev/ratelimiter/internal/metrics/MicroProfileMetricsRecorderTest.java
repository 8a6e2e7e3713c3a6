package dev.ratelimiter.internal.metrics;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.Verdict.Outcome;
import org.eclipse.microprofile.metrics.Counter;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.MetricUnits;
import org.eclipse.microprofile.metrics.Tag;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

class MicroProfileMetricsRecorderTest {

    /** The Metadata of every counter, gauge and timer registered, in order. */
    private final List<Metadata> registered = new ArrayList<>();
    private final MetricRegistry registry = recording(MetricRegistry.class, registered);

    @Test
    @DisplayName("every series is registered with a description and a unit: nanoseconds for the timer (what it "
            + "records; exported in seconds), none for counts and the degraded flag")
    void descriptionsAndUnits() {
        MicroProfileMetricsRecorder recorder = new MicroProfileMetricsRecorder(registry);
        recorder.register(List.of(Bucket.of("login", 5, Duration.ofMinutes(15))), Map.of(), "postgres", () -> false);
        recorder.rejectedSettings(() -> 0);

        Map<String, Metadata> byName = registered.stream()
                .collect(Collectors.toMap(Metadata::getName, Function.identity(), (a, b) -> {
                    assertThat(b).as("one Metadata per name, whatever the tags").isEqualTo(a);
                    return a;
                }));
        assertThat(byName).containsOnlyKeys("rate_limiter_decisions", "rate_limiter_fallbacks",
                "rate_limiter_fail_open", "rate_limiter_near_limit", "rate_limiter_cached_denials", "rate_limiter_refunds",
                "rate_limiter_settlements", "rate_limiter_settled_cost",
                "rate_limiter_plan_misses", "rate_limiter_plan_cache_lookups", "rate_limiter_backend_errors",
                "rate_limiter_degraded", "rate_limiter_backend", "rate_limiter_rejected_settings");
        assertThat(byName.values()).allSatisfy(metadata ->
                assertThat(metadata.getDescription()).as(metadata.getName()).isNotBlank());
        assertThat(byName.get("rate_limiter_fallbacks").getDescription())
                .isEqualTo("Decisions made by the per-process fallback while the store was out");
        assertThat(byName.get("rate_limiter_backend").getUnit()).isEqualTo(MetricUnits.NANOSECONDS);
        assertThat(byName.values()).filteredOn(metadata -> !metadata.getName().equals("rate_limiter_backend"))
                .allSatisfy(metadata -> assertThat(metadata.getUnit()).as(metadata.getName())
                        .isEqualTo(MetricUnits.NONE));
    }

    @Test
    @DisplayName("one set of tag names per metric name, as MicroProfile Metrics requires: plan on every decision "
            + "series (shadow ones and a late plan label's included), reason on every plan miss")
    void oneTagSetPerName() {
        Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
        MicroProfileMetricsRecorder recorder = new MicroProfileMetricsRecorder(counting(counts));
        Bucket reports = Bucket.of("reports", 10, Duration.ofMinutes(1));
        recorder.register(List.of(reports, Bucket.of("login", 5, Duration.ofMinutes(15))),
                Map.of("reports", java.util.Set.of("pro")), "memory", () -> false);
        recorder.decision(reports.withPlan("gold", List.of(new Limit(20, Duration.ofMinutes(1))), 0),
                Outcome.ALLOWED);

        Map<String, java.util.Set<java.util.Set<String>>> tagNames = new java.util.TreeMap<>();
        counts.keySet().forEach(series -> tagNames.computeIfAbsent(series.substring(0, series.indexOf('{')),
                name -> new java.util.HashSet<>()).add(Arrays.stream(series.substring(series.indexOf('{') + 1,
                series.length() - 1).split(",")).map(tag -> tag.substring(0, tag.indexOf('=')))
                .collect(Collectors.toSet())));
        assertThat(tagNames).allSatisfy((name, sets) -> assertThat(sets).as(name).hasSize(1));
        assertThat(tagNames.get("rate_limiter_decisions")).containsExactly(java.util.Set.of("bucket", "plan",
                "outcome"));
        assertThat(tagNames.get("rate_limiter_plan_misses")).containsExactly(java.util.Set.of("bucket", "reason"));
        assertThat(tagNames.get("rate_limiter_plan_cache_lookups")).containsExactly(java.util.Set.of("result"));
        assertThat(counts).containsKeys("rate_limiter_decisions{bucket=reports,plan=pro,outcome=shadow_denied}",
                "rate_limiter_decisions{bucket=login,plan=explicit,outcome=allowed}",
                "rate_limiter_plan_misses{bucket=login,reason=unfit}",
                "rate_limiter_plan_cache_lookups{result=miss}");
        assertThat(counts.get("rate_limiter_decisions{bucket=reports,plan=gold,outcome=allowed}")).hasValue(1);
    }

    @Test
    @DisplayName("a shadow bucket's would-be refusals count in rate_limiter_decisions under outcome shadow_denied "
            + "and shadow_unavailable, registered at startup, never as denied")
    void shadowOutcomes() {
        Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
        MetricRegistry counting = counting(counts);
        Bucket trial = Bucket.of("trial", 2, Duration.ofHours(1));
        MicroProfileMetricsRecorder recorder = new MicroProfileMetricsRecorder(counting);
        recorder.register(List.of(trial), Map.of(), "memory", () -> false);
        assertThat(counts).containsKeys("rate_limiter_decisions{bucket=trial,plan=none,outcome=shadow_denied}",
                "rate_limiter_decisions{bucket=trial,plan=none,outcome=shadow_unavailable}");

        recorder.shadowDecision(trial, Outcome.DENIED);
        recorder.shadowDecision(trial, Outcome.DENIED);
        recorder.shadowDecision(trial, Outcome.UNAVAILABLE);

        assertThat(counts.get("rate_limiter_decisions{bucket=trial,plan=none,outcome=shadow_denied}")).hasValue(2);
        assertThat(counts.get("rate_limiter_decisions{bucket=trial,plan=none,outcome=shadow_unavailable}"))
                .hasValue(1);
        assertThat(counts.get("rate_limiter_decisions{bucket=trial,plan=none,outcome=denied}")).hasValue(0);
    }

    /**
     * A registry whose counters count into {@code counts}, keyed {@code name{tag=value,...}} in the order the
     * recorder gave the tags; its other metrics are {@link #recording} stand-ins.
     */
    private static MetricRegistry counting(Map<String, AtomicLong> counts) {
        return (MetricRegistry) Proxy.newProxyInstance(MetricRegistry.class.getClassLoader(),
                new Class<?>[] {MetricRegistry.class}, (proxy, method, args) -> {
                    if (method.getName().equals("counter") && args[0] instanceof Metadata metadata) {
                        String tags = Arrays.stream((Tag[]) args[1]).map(tag -> tag.getTagName() + "="
                                + tag.getTagValue()).collect(Collectors.joining(","));
                        AtomicLong count = counts.computeIfAbsent(metadata.getName() + "{" + tags + "}",
                                name -> new AtomicLong());
                        return Proxy.newProxyInstance(Counter.class.getClassLoader(), new Class<?>[] {Counter.class},
                                (counter, call, none) -> call.getName().equals("inc") ? count.incrementAndGet() : null);
                    }
                    return method.getReturnType().isInterface() ? recording(method.getReturnType(), new ArrayList<>())
                            : null;
                });
    }

    /**
     * A stand-in of a MicroProfile Metrics interface that keeps every {@link Metadata} argument and answers each
     * call with a stand-in of the returned interface (a counter, a gauge, a timer), or null for other types.
     */
    private static <T> T recording(Class<T> type, List<Metadata> registered) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            for (Object arg : args == null ? new Object[0] : args) {
                if (arg instanceof Metadata metadata) {
                    registered.add(metadata);
                }
            }
            Class<?> returned = method.getReturnType();
            return returned.isInterface() ? recording(returned, registered) : null;
        }));
    }
}
