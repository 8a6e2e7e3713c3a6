package dev.ratelimiter.internal.metrics;

import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.MetricsSystem;
import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.testing.LogCapture;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The choosing rule of {@code ratelimiter.metrics.system}, with the libraries' beans offered in a real CDI container
 * (Weld SE) in every combination: {@code auto} takes MicroProfile Metrics, then Micrometer, then OpenTelemetry; a
 * named system is taken whatever else is there, and fails the start, naming the property, when it is not there.
 */
class MetricsRecordersTest {

    static class MicroProfileBean {
        @Produces
        @Singleton
        MetricRegistry registry() {
            // choose() only looks the registry up; what it records is MicroProfileMetricsRecorderTest's.
            return (MetricRegistry) Proxy.newProxyInstance(MetricRegistry.class.getClassLoader(),
                    new Class<?>[] {MetricRegistry.class}, (proxy, method, args) -> {
                        throw new UnsupportedOperationException(method.getName());
                    });
        }
    }

    static class MicrometerBean {
        @Produces
        @Singleton
        MeterRegistry registry() {
            return new SimpleMeterRegistry();
        }
    }

    static class OpenTelemetryBean {
        @Produces
        @Singleton
        OpenTelemetry openTelemetry() {
            return OpenTelemetrySdk.builder().setMeterProvider(SdkMeterProvider.builder()
                    .registerMetricReader(InMemoryMetricReader.create()).build()).build();
        }
    }

    /** MicroProfile Telemetry's bean with its SDK off (otel.sdk.disabled, its default): the API's no-op. */
    static class DisabledOpenTelemetryBean {
        @Produces
        @Singleton
        OpenTelemetry openTelemetry() {
            return OpenTelemetry.noop();
        }
    }

    /** Some bean of the application's: Weld SE refuses to start with none. */
    static class ApplicationBean {
    }

    private WeldContainer container;

    @AfterEach
    void close() {
        if (container != null) {
            container.close();
        }
    }

    private RateLimiterMetrics choose(String system, String offered) {
        List<Class<?>> beans = new ArrayList<>(List.of(ApplicationBean.class));
        if (offered.contains("microprofile")) {
            beans.add(MicroProfileBean.class);
        }
        if (offered.contains("micrometer")) {
            beans.add(MicrometerBean.class);
        }
        if (offered.contains("disabled-opentelemetry")) {
            beans.add(DisabledOpenTelemetryBean.class);
        } else if (offered.contains("opentelemetry")) {
            beans.add(OpenTelemetryBean.class);
        }
        container = new Weld("metrics-" + System.nanoTime()).disableDiscovery()
                .addBeanClasses(beans.toArray(Class<?>[]::new)).initialize();
        return MetricsRecorders.choose(MetricsSystem.parse(system).orElseThrow(), container);
    }

    private static String adapter(RateLimiterMetrics metrics) {
        if (metrics == RateLimiterMetrics.NONE) {
            return "none";
        }
        return metrics instanceof MicroProfileMetricsRecorder ? "microprofile"
                : metrics instanceof MicrometerMetricsRecorder ? "micrometer"
                : metrics instanceof OpenTelemetryMetricsRecorder ? "opentelemetry"
                : metrics.getClass().getName();
    }

    @ParameterizedTest(name = "{0} with {1} offered: {2}")
    @DisplayName("one system records: auto in its order, a named one whatever else is there, none never")
    @CsvSource(delimiter = '|', value = {
            "auto          | microprofile micrometer opentelemetry | microprofile",
            "auto          | micrometer opentelemetry              | micrometer",
            "auto          | microprofile opentelemetry            | microprofile",
            "auto          | opentelemetry                         | opentelemetry",
            "auto          | ''                                    | none",
            "microprofile  | microprofile micrometer opentelemetry | microprofile",
            "micrometer    | microprofile micrometer opentelemetry | micrometer",
            "opentelemetry | microprofile micrometer opentelemetry | opentelemetry",
            "OpenTelemetry | opentelemetry                         | opentelemetry",
            "none          | microprofile micrometer opentelemetry | none",
            "none          | ''                                    | none"})
    void chosen(String system, String offered, String expected) {
        assertThat(adapter(choose(system, offered))).isEqualTo(expected);
    }

    @org.junit.jupiter.api.Test
    @DisplayName("auto with only an OpenTelemetry whose SDK is off records in it, and warns that nothing is exported, "
            + "naming otel.sdk.disabled; an SDK that is on gets no warning")
    void sdkOffWarned() {
        try (LogCapture log = LogCapture.of(MetricsRecorders.class)) {
            assertThat(adapter(choose("auto", "disabled-opentelemetry"))).isEqualTo("opentelemetry");
            assertThat(log.messages(Level.WARNING)).singleElement().asString()
                    .contains("nothing is exported", "otel.sdk.disabled=false");
        }
        container.close();
        container = null;
        try (LogCapture log = LogCapture.of(MetricsRecorders.class)) {
            assertThat(adapter(choose("auto", "opentelemetry"))).isEqualTo("opentelemetry");
            assertThat(log.messages(Level.WARNING)).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0} with {1} offered")
    @DisplayName("a named system the server does not offer fails the start, naming the property and what is missing")
    @CsvSource(delimiter = '|', value = {
            "opentelemetry | microprofile micrometer | OpenTelemetry",
            "micrometer    | microprofile opentelemetry | Micrometer",
            "microprofile  | micrometer opentelemetry | MicroProfile Metrics"})
    void absentSystemFails(String system, String offered, String library) {
        assertThatThrownBy(() -> choose(system, offered)).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.metrics.system: '" + system + "' is chosen, but this server "
                        + "offers no " + library);
    }
}
