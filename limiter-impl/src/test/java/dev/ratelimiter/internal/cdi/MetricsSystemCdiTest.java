package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimits;
import dev.ratelimiter.spi.ConfigurationException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code ratelimiter.metrics.system} through the library's CDI start, with a server that offers both Micrometer
 * and OpenTelemetry (as Quarkus may): the chosen one alone counts the decisions, and a chosen system the server
 * lacks fails the start naming the property.
 */
class MetricsSystemCdiTest {

    /** Both libraries' beans, as an application with quarkus-micrometer and quarkus-opentelemetry has them. */
    static class BothLibraries {
        static final SimpleMeterRegistry MICROMETER = new SimpleMeterRegistry();
        static InMemoryMetricReader reader;

        @Produces
        @Singleton
        MeterRegistry meterRegistry() {
            return MICROMETER;
        }

        @Produces
        @Singleton
        OpenTelemetry openTelemetry() {
            return OpenTelemetrySdk.builder()
                    .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build()).build();
        }
    }

    private CdiContainer cdi;

    @AfterEach
    void close() {
        if (cdi != null) {
            cdi.close();
        }
        BothLibraries.MICROMETER.clear();
    }

    private RateLimits start(String system, Class<?>... beans) {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.buckets.login.limit", "1",
                "ratelimiter.buckets.login.window", "PT1M"));
        properties.put("ratelimiter.metrics.system", system);
        BothLibraries.reader = InMemoryMetricReader.create();
        cdi = CdiContainer.start(properties, beans);
        return cdi.select(RateLimits.class);
    }

    @Test
    @DisplayName("opentelemetry: the decisions are counted in OpenTelemetry only, though Micrometer is there too")
    void openTelemetryChosen() {
        RateLimits limits = start("opentelemetry", BothLibraries.class);
        limits.consume("login", "alice");
        limits.consume("login", "alice");

        assertThat(decisions("allowed")).contains(1L);
        assertThat(decisions("denied")).contains(1L);
        assertThat(BothLibraries.MICROMETER.find("rate_limiter.decisions").meters()).isEmpty();
    }

    @Test
    @DisplayName("auto: Micrometer before OpenTelemetry, so the decisions are counted once, in Micrometer")
    void autoPrefersMicrometer() {
        RateLimits limits = start("auto", BothLibraries.class);
        limits.consume("login", "alice");

        assertThat(BothLibraries.MICROMETER.get("rate_limiter.decisions").tag("bucket", "login")
                .tag("plan", "none").tag("outcome", "allowed").counter().count()).isEqualTo(1);
        assertThat(BothLibraries.reader.collectAllMetrics()).isEmpty();
    }

    @Test
    @DisplayName("a token bucket's decisions are counted as a fixed window's: allowed and denied, per bucket")
    void tokenBucketCounted() {
        Map<String, String> properties = Map.of(
                "ratelimiter.buckets.reports.limit", "2",
                "ratelimiter.buckets.reports.window", "PT1M",
                "ratelimiter.buckets.reports.algorithm", "token-bucket",
                "ratelimiter.buckets.reports.burst", "1",
                "ratelimiter.metrics.system", "micrometer");
        BothLibraries.reader = InMemoryMetricReader.create();
        cdi = CdiContainer.start(properties, BothLibraries.class);
        RateLimits limits = cdi.select(RateLimits.class);
        limits.consume("reports", "acme");
        limits.consume("reports", "acme");

        assertThat(BothLibraries.MICROMETER.get("rate_limiter.decisions").tag("bucket", "reports")
                .tag("plan", "none").tag("outcome", "allowed").counter().count()).isEqualTo(1);
        assertThat(BothLibraries.MICROMETER.get("rate_limiter.decisions").tag("bucket", "reports")
                .tag("plan", "none").tag("outcome", "denied").counter().count()).isEqualTo(1);
    }

    @Test
    @DisplayName("a chosen system the server does not offer fails the start, naming the property")
    void absentSystemFailsStart() {
        assertThatThrownBy(() -> start("micrometer")).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.metrics.system: 'micrometer' is chosen, but this server offers "
                        + "no Micrometer");
    }

    @Test
    @DisplayName("an unknown system fails the start, naming the property and the values it takes")
    void unknownSystemFailsStart() {
        assertThatThrownBy(() -> start("prometheus", BothLibraries.class))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.metrics.system: 'prometheus' is not a metrics system; use auto, "
                        + "microprofile, micrometer, opentelemetry or none");
    }

    private static Optional<Long> decisions(String outcome) {
        return BothLibraries.reader.collectAllMetrics().stream()
                .filter(metric -> metric.getName().equals("rate_limiter.decisions"))
                .map(MetricData::getLongSumData)
                .flatMap(sum -> sum.getPoints().stream())
                .filter(point -> point.getAttributes().equals(Attributes.builder().put("bucket", "login")
                        .put("plan", "none").put("outcome", outcome).build()))
                .map(LongPointData::getValue)
                .findFirst();
    }
}
