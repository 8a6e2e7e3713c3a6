package dev.ratelimiter.it.liberty;

import dev.ratelimiter.it.ExampleApi;
import dev.ratelimiter.it.ExampleDeployments;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The OpenTelemetry adapter on Open Liberty's MicroProfile Telemetry 2.0 ({@code mpTelemetry-2.0} in server.xml,
 * beside {@code mpMetrics-5.1}), chosen with {@code ratelimiter.metrics.system=opentelemetry}. The application turns
 * its own OpenTelemetry SDK on (application-level {@code otel.*} properties) with the logging exporter every half
 * second, so the exported metrics are read from messages.log; no collector is needed.
 *
 * <p>mpTelemetry-2.0 offers the OpenTelemetry API as a third-party API, which an application sees only with
 * {@code <classloader apiTypeVisibility="+third-party"/>} (docs/operations.md#opentelemetry says so). A dropins
 * deployment, as the Arquillian adapter makes, cannot carry that, so this test deploys the example as a
 * {@link ConfiguredApplication} (a {@code webApplication} in a configDropins override) on the server Arquillian
 * started, and removes it afterwards.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class LibertyOpenTelemetryIT {

    private static final String APP = "otel-metrics";
    /** One export of the decision series by the logging exporter: {@code metric: ImmutableMetricData{...}}. */
    private static final Pattern DECISIONS_EXPORT = Pattern.compile("name=rate_limiter\\.decisions, [^\\n]*");

    private static ConfiguredApplication application;

    @BeforeAll
    static void deploy() {
        application = ConfiguredApplication.deploy(APP, ExampleDeployments.example(APP + ".war", """
                ratelimiter.trusted-proxies=127.0.0.1,::1
                ratelimiter.metrics.system=opentelemetry
                otel.sdk.disabled=false
                otel.service.name=otel-metrics
                otel.metrics.exporter=logging
                otel.metric.export.interval=500
                otel.traces.exporter=none
                otel.logs.exporter=none
                """), "<classloader apiTypeVisibility=\"+third-party\"/>");
        assertThat(application.started()).as("the application started").isTrue();
        assertThat(application.log()).doesNotContain("Rate limiter configuration is invalid");
    }

    @AfterAll
    static void undeploy() {
        if (application != null) {
            application.close();
        }
    }

    @Test
    @DisplayName("decisions are exported through MicroProfile Telemetry 2.0 with the other adapters' name, "
            + "description and attributes, and not counted again in MicroProfile Metrics")
    void decisionsExported() {
        URI root = URI.create("http://127.0.0.1:" + System.getProperty("liberty.http.port") + "/");
        ExampleApi client = ExampleApi.newClient(root);
        for (int i = 0; i < 3; i++) {
            assertThat(client.get("api/projects").statusCode()).isEqualTo(200);
        }

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(latestValue("api-anonymous", "allowed")).hasValue(3));
        String export = latestExport();
        assertThat(export).contains("description=Decisions per bucket, plan and outcome, after the outage policy")
                .contains("type=LONG_SUM")
                .contains("attributes={bucket=\"api-anonymous\", outcome=\"denied\", plan=\"none\"}, value=0");
        assertThat(application.log()).contains("InstrumentationScopeInfo{name=dev.ratelimiter")
                .contains("Rate limiter metrics: OpenTelemetry");

        HttpResponse<String> mpMetrics = client.get("metrics");
        assertThat(mpMetrics.statusCode()).isEqualTo(200);
        assertThat(mpMetrics.body()).as("MicroProfile Metrics' own series are there, the limiter's are not")
                .contains("jvm_").doesNotContain("rate_limiter_");
    }

    /** The logging exporter's latest line about the decision series. */
    private static String latestExport() {
        Matcher matcher = DECISIONS_EXPORT.matcher(application.log());
        String latest = "";
        while (matcher.find()) {
            latest = matcher.group();
        }
        return latest;
    }

    /** The value of one decision series (no plan) in the latest export, if exported yet; attributes by name. */
    private static OptionalLong latestValue(String bucket, String outcome) {
        Matcher value = Pattern.compile(Pattern.quote("attributes={bucket=\"" + bucket + "\", outcome=\"" + outcome
                + "\", plan=\"none\"}, value=") + "(\\d+)").matcher(latestExport());
        return value.find() ? OptionalLong.of(Long.parseLong(value.group(1))) : OptionalLong.empty();
    }
}
