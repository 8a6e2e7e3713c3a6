package dev.ratelimiter.it.quarkus;

import dev.ratelimiter.it.ExampleApi;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricExporter;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.URISyntaxException;
import java.net.URL;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The OpenTelemetry adapter on Quarkus: quarkus-opentelemetry with its metrics on, chosen by
 * {@code ratelimiter.metrics.system=opentelemetry} beside Micrometer (which the module also has). Quarkus exports
 * through its default metrics exporter setting ({@code cdi}: the application's {@code MetricExporter} bean), here an
 * in-memory one the test reads, every 100 ms; no collector is needed.
 */
@QuarkusTest
@TestProfile(QuarkusOpenTelemetryTest.OpenTelemetryMetrics.class)
class QuarkusOpenTelemetryTest {

    /** OpenTelemetry's SDK and metrics on, its metrics chosen for the limiter. */
    public static class OpenTelemetryMetrics implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "quarkus.otel.sdk.disabled", "false",
                    "quarkus.otel.metrics.enabled", "true",
                    "quarkus.otel.metric.export.interval", "100ms",
                    "ratelimiter.metrics.system", "opentelemetry");
        }
    }

    /** The exporter Quarkus takes for its {@code cdi} metrics exporter: kept in memory, read by the test. */
    @ApplicationScoped
    static class InMemoryExporter {
        @Produces
        @Singleton
        InMemoryMetricExporter exporter() {
            return InMemoryMetricExporter.create();
        }
    }

    @Inject
    InMemoryMetricExporter exporter;

    @TestHTTPResource("/")
    URL root;

    @Test
    @DisplayName("decisions are exported through OpenTelemetry with the other adapters' name, description and "
            + "attributes, and not counted again in Micrometer")
    void decisionsExported() throws URISyntaxException {
        ExampleApi client = ExampleApi.newClient(root.toURI());
        for (int i = 0; i < 3; i++) {
            assertThat(client.get("api/projects").statusCode()).isEqualTo(200);
        }

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(decisions("api-anonymous", "allowed")).contains(3L));
        MetricData decisions = latest("rate_limiter.decisions").orElseThrow();
        // the description metrics.Series gives every adapter (it goes on to name the shadow outcomes)
        assertThat(decisions.getDescription())
                .startsWith("Decisions per bucket, plan and outcome, after the outage policy");
        assertThat(decisions.getInstrumentationScopeInfo().getName()).isEqualTo("dev.ratelimiter");
        assertThat(decisions("api-anonymous", "denied")).as("registered at 0 before any refusal").contains(0L);

        HttpResponse<String> micrometer = client.get("q/metrics");
        assertThat(micrometer.statusCode()).isEqualTo(200);
        assertThat(micrometer.body()).as("Micrometer's own series are there, the limiter's are not")
                .contains("jvm_").doesNotContain("rate_limiter_");
    }

    /** The value of the latest export of that decision series, if exported yet. */
    private Optional<Long> decisions(String bucket, String outcome) {
        Attributes attributes = Attributes.builder().put("bucket", bucket).put("plan", "none")
                .put("outcome", outcome).build();
        return latest("rate_limiter.decisions").flatMap(metric -> metric.getLongSumData().getPoints().stream()
                .filter(point -> point.getAttributes().equals(attributes))
                .map(LongPointData::getValue)
                .findFirst());
    }

    private Optional<MetricData> latest(String name) {
        List<MetricData> exported = exporter.getFinishedMetricItems().stream()
                .filter(metric -> metric.getName().equals(name))
                .toList();
        return exported.isEmpty() ? Optional.empty() : Optional.of(exported.get(exported.size() - 1));
    }
}
