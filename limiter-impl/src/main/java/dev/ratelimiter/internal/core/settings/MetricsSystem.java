package dev.ratelimiter.internal.core.settings;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which metrics library records the limiter's series ({@code ratelimiter.metrics.system}, docs/operations.md#metrics):
 * exactly one, so nothing is counted twice where a server offers several.
 */
public enum MetricsSystem {
    /**
     * The first the server offers, in {@link #AUTO_ORDER}: MicroProfile Metrics, then Micrometer, then
     * OpenTelemetry; none when it offers none.
     */
    AUTO,
    /** MicroProfile Metrics' {@code MetricRegistry} (Payara, Open Liberty's {@code mpMetrics}). */
    MICROPROFILE,
    /** Micrometer's {@code MeterRegistry} (Quarkus' {@code quarkus-micrometer}). */
    MICROMETER,
    /**
     * The OpenTelemetry API's {@code OpenTelemetry} bean (MicroProfile Telemetry 2 on Open Liberty,
     * {@code quarkus-opentelemetry}).
     */
    OPENTELEMETRY,
    /** No metrics at all. */
    NONE;

    /**
     * The order {@link #AUTO} tries. OpenTelemetry comes last: a server often has its bean for tracing alone
     * (MicroProfile Telemetry 1.1 on Payara; Quarkus, whose OpenTelemetry metrics are off unless enabled), and
     * Quarkus can bridge Micrometer's meters into OpenTelemetry, so recording in both would count twice there.
     */
    public static final List<MetricsSystem> AUTO_ORDER = List.of(MICROPROFILE, MICROMETER, OPENTELEMETRY);

    /** The configuration spelling: {@code auto}, {@code microprofile}, {@code micrometer}... */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The system of that configuration spelling, ignoring case and surrounding blanks.
     *
     * @return empty for any other text
     */
    public static Optional<MetricsSystem> parse(String text) {
        String name = text.strip().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(system -> system.configName().equals(name)).findFirst();
    }
}
