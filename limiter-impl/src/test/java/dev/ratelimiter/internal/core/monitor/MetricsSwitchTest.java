package dev.ratelimiter.internal.core.monitor;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

class MetricsSwitchTest {

    private final Bucket bucket = Bucket.of("login", 5, Duration.ofMinutes(15));

    @Test
    @DisplayName("once connected, every event of the port reaches the adapter with its arguments: an event the "
            + "switch did not forward (the port's default does nothing) would never be recorded in a server")
    void forwardsEveryEvent() throws Exception {
        List<String> received = new ArrayList<>();
        RateLimiterMetrics adapter = (RateLimiterMetrics) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {RateLimiterMetrics.class}, (proxy, method, args) -> {
                    received.add(method.getName() + Arrays.toString(args));
                    return null;
                });
        MetricsSwitch metricsSwitch = new MetricsSwitch();
        metricsSwitch.connect(adapter);

        List<String> sent = new ArrayList<>();
        for (Method method : RateLimiterMetrics.class.getMethods()) {
            if (Modifier.isStatic(method.getModifiers()) || method.getName().equals("close")) {
                continue; // closeStopsForwarding
            }
            Object[] args = Arrays.stream(method.getParameterTypes()).map(this::argument).toArray();
            method.invoke(metricsSwitch, args);
            sent.add(method.getName() + Arrays.toString(args));
        }

        assertThat(sent).contains("refund[" + bucket + ", true]", "planCache[true]",
                "planMiss[" + bucket + ", UNDECLARED]");
        assertThat(received).containsExactlyInAnyOrderElementsOf(sent);
    }

    @Test
    @DisplayName("close closes the adapter once and drops every later event")
    void closeStopsForwarding() {
        List<String> received = new ArrayList<>();
        RateLimiterMetrics adapter = (RateLimiterMetrics) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {RateLimiterMetrics.class}, (proxy, method, args) -> {
                    received.add(method.getName());
                    return null;
                });
        MetricsSwitch metricsSwitch = new MetricsSwitch();
        metricsSwitch.connect(adapter);

        metricsSwitch.close();
        metricsSwitch.decision(bucket, Verdict.Outcome.ALLOWED);
        metricsSwitch.close();

        assertThat(received).containsExactly("close");
    }

    private Object argument(Class<?> type) {
        if (type == Bucket.class) {
            return bucket;
        } else if (type == String.class) {
            return "valkey";
        } else if (type == boolean.class) {
            return true;
        } else if (type == long.class) {
            return 1_500L;
        } else if (type == int.class) {
            return -1;
        } else if (type == Verdict.Outcome.class) {
            return Verdict.Outcome.DENIED;
        } else if (type == RateLimiterMetrics.WaitOutcome.class) {
            return RateLimiterMetrics.WaitOutcome.TIMED_OUT;
        } else if (type == RateLimiterMetrics.PlanMiss.class) {
            return RateLimiterMetrics.PlanMiss.UNDECLARED;
        } else if (type == Collection.class) {
            return List.of(bucket);
        } else if (type == Map.class) {
            return Map.of("login", Set.of("pro"));
        } else if (type == BooleanSupplier.class) {
            return (BooleanSupplier) () -> false;
        } else if (type == java.util.function.IntSupplier.class) {
            return (java.util.function.IntSupplier) () -> 2;
        }
        throw new AssertionError("no argument of " + type + " for the port's methods: add one here");
    }
}
