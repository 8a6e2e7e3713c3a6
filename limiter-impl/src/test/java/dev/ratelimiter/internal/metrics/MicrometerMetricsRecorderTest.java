package dev.ratelimiter.internal.metrics;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict.Outcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

class MicrometerMetricsRecorderTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MicrometerMetricsRecorder recorder = new MicrometerMetricsRecorder(registry);
    private final Bucket login = new Bucket("login", 5, Duration.ofMinutes(15), OutagePolicy.FAIL_OPEN);
    private final AtomicBoolean degraded = new AtomicBoolean();

    @Test
    @DisplayName("every series exists at zero right after registration, tagged by bucket or backend only")
    void registeredAtZero() {
        recorder.register(List.of(login), "valkey", degraded::get);
        assertThat(registry.get("rate_limiter.fallbacks").tag("bucket", "login").counter().count()).isZero();
        assertThat(registry.get("rate_limiter.fail_open").tag("bucket", "login").counter().count()).isZero();
        assertThat(registry.get("rate_limiter.cached_denials").tag("bucket", "login").counter().count()).isZero();
        assertThat(registry.get("rate_limiter.decisions").tag("bucket", "login").tag("outcome", "denied").counter()
                .count()).isZero();
        assertThat(registry.get("rate_limiter.backend_errors").tag("backend", "valkey").counter().count()).isZero();
        assertThat(registry.get("rate_limiter.degraded").tag("backend", "valkey").gauge().value()).isZero();
        assertThat(registry.get("rate_limiter.backend").tag("backend", "valkey").timer().count()).isZero();
    }

    @Test
    @DisplayName("events move their series; the degraded gauge follows the backend's state")
    void eventsCounted() {
        recorder.register(List.of(login), "valkey", degraded::get);
        recorder.fallback(login);
        recorder.failOpen(login);
        recorder.failOpen(login);
        recorder.decision(login, Outcome.ALLOWED);
        recorder.cachedDenial(login);
        recorder.refund(login, true);
        recorder.refund(login, false);
        recorder.refund(login, false);
        recorder.backendError("valkey");
        recorder.backendCall("valkey", 1_500_000);
        degraded.set(true);

        assertThat(registry.get("rate_limiter.fallbacks").counter().count()).isEqualTo(1);
        assertThat(registry.get("rate_limiter.fail_open").counter().count()).isEqualTo(2);
        assertThat(registry.get("rate_limiter.cached_denials").counter().count()).isEqualTo(1);
        assertThat(registry.get("rate_limiter.refunds").tag("outcome", "given").counter().count()).isEqualTo(1);
        assertThat(registry.get("rate_limiter.refunds").tag("outcome", "dropped").counter().count()).isEqualTo(2);
        assertThat(registry.get("rate_limiter.decisions").tag("outcome", "allowed").counter().count()).isEqualTo(1);
        assertThat(registry.get("rate_limiter.backend_errors").counter().count()).isEqualTo(1);
        assertThat(registry.get("rate_limiter.degraded").gauge().value()).isEqualTo(1);
        assertThat(registry.get("rate_limiter.backend").timer().count()).isEqualTo(1);
    }

    @Test
    @DisplayName("every meter has a description; the timer is in seconds, counts and the flag have no base unit "
            + "(which Prometheus naming would append to the series' name)")
    void descriptionsAndUnits() {
        recorder.register(List.of(login), "valkey", degraded::get);
        assertThat(registry.getMeters()).hasSize(13).allSatisfy(meter ->
                assertThat(meter.getId().getDescription()).as(meter.getId().getName()).isNotBlank());
        assertThat(registry.get("rate_limiter.decisions").tag("outcome", "denied").counter().getId().getDescription())
                .isEqualTo("Decisions per bucket and outcome, after the outage policy; shadow_* outcomes are "
                        + "refusals of a bucket in shadow mode, which let the call go on");
        assertThat(registry.get("rate_limiter.backend").timer().getId().getBaseUnit()).isEqualTo("seconds");
        assertThat(registry.getMeters()).filteredOn(meter -> !meter.getId().getName().equals("rate_limiter.backend"))
                .allSatisfy(meter -> assertThat(meter.getId().getBaseUnit()).as(meter.getId().getName()).isNull());
    }

    @Test
    @DisplayName("a shadow bucket's would-be refusals have their own outcomes, at zero from the start, apart from denied")
    void shadowOutcomes() {
        recorder.register(List.of(login), "valkey", degraded::get);
        assertThat(registry.get("rate_limiter.decisions").tag("bucket", "login").tag("outcome", "shadow_denied")
                .counter().count()).isZero();

        recorder.shadowDecision(login, Outcome.DENIED);
        recorder.shadowDecision(login, Outcome.DENIED);
        recorder.shadowDecision(login, Outcome.UNAVAILABLE);

        assertThat(registry.get("rate_limiter.decisions").tag("outcome", "shadow_denied").counter().count())
                .isEqualTo(2);
        assertThat(registry.get("rate_limiter.decisions").tag("outcome", "shadow_unavailable").counter().count())
                .isEqualTo(1);
        assertThat(registry.get("rate_limiter.decisions").tag("outcome", "denied").counter().count()).isZero();
        assertThat(registry.get("rate_limiter.decisions").tag("outcome", "unavailable").counter().count()).isZero();
        assertThat(registry.find("rate_limiter.decisions").tag("outcome", "shadow_allowed").counters())
                .as("an allowed call of a shadow bucket is an ordinary allowed decision").isEmpty();
    }

    @Test
    @DisplayName("the degraded gauge survives garbage collection, though only the registry holds its supplier")
    void degradedGaugeHeldStrongly() {
        recorder.register(List.of(login), "memory", () -> degraded.get());
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        assertThat(registry.get("rate_limiter.degraded").tag("backend", "memory").gauge().value()).isZero();
    }
}
