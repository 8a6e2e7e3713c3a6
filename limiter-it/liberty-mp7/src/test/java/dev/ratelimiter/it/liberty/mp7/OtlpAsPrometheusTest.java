package dev.ratelimiter.it.liberty.mp7;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.resource.v1.Resource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** OpenTelemetry's Prometheus naming, as the receiver of limiter-it/liberty-mp7 applies it to an export. */
class OtlpAsPrometheusTest {

    @ParameterizedTest(name = "{0} ({1}, unit \"{2}\") is {3}")
    @CsvSource({
            "rate_limiter.decisions, counter, '', rate_limiter_decisions_total",
            "rate_limiter.degraded, gauge, '', rate_limiter_degraded",
            "rate_limiter.backend, histogram, s, rate_limiter_backend_seconds",
            "http.server.request.duration, histogram, s, http_server_request_duration_seconds",
            "jvm.memory.used, updown, By, jvm_memory_used_bytes",
            "jvm.cpu.recent_utilization, gauge, 1, jvm_cpu_recent_utilization_ratio",
            "http.server.active_requests, updown, {request}, http_server_active_requests",
            "app.processed, counter, {item}, app_processed_total",
            "net.io, counter, By/s, net_io_bytes_per_second_total",
            "app.requests_total, counter, '', app_requests_total",
            "app.wait_seconds, histogram, s, app_wait_seconds"})
    @DisplayName("names: dots to underscores, the unit as a word unless there, _total on monotonic sums")
    void names(String name, String kind, String unit, String prometheus) {
        assertThat(OtlpAsPrometheus.name(metric(name, kind, unit))).isEqualTo(prometheus);
    }

    @Test
    @DisplayName("an export as text: HELP and TYPE, the attributes as labels with the scope and the job, a histogram's "
            + "buckets cumulative up to +Inf")
    void exposition() {
        Metric decisions = Metric.newBuilder().setName("rate_limiter.decisions").setDescription("Decisions")
                .setSum(Sum.newBuilder().setIsMonotonic(true)
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(NumberDataPoint.newBuilder().setAsInt(3)
                                .addAttributes(attribute("bucket", "login"))
                                .addAttributes(attribute("outcome", "allowed")))).build();
        Metric backend = Metric.newBuilder().setName("rate_limiter.backend").setDescription("Time").setUnit("s")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                        .addDataPoints(HistogramDataPoint.newBuilder().setCount(3).setSum(0.5)
                                .addExplicitBounds(0.1).addExplicitBounds(1.0)
                                .addBucketCounts(1).addBucketCounts(2).addBucketCounts(0)
                                .addAttributes(attribute("backend", "postgres")))).build();
        ExportMetricsServiceRequest export = ExportMetricsServiceRequest.newBuilder().addResourceMetrics(
                ResourceMetrics.newBuilder()
                        .setResource(Resource.newBuilder().addAttributes(attribute("service.name", "shop")))
                        .addScopeMetrics(ScopeMetrics.newBuilder()
                                .setScope(InstrumentationScope.newBuilder().setName("dev.ratelimiter"))
                                .addMetrics(decisions).addMetrics(backend))).build();

        assertThat(OtlpAsPrometheus.exposition(export)).isEqualTo("""
                # HELP rate_limiter_decisions_total Decisions
                # TYPE rate_limiter_decisions_total counter
                rate_limiter_decisions_total{bucket="login",job="shop",otel_scope_name="dev.ratelimiter",outcome="allowed"} 3.0
                # HELP rate_limiter_backend_seconds Time
                # TYPE rate_limiter_backend_seconds histogram
                rate_limiter_backend_seconds_bucket{backend="postgres",job="shop",le="0.1",otel_scope_name="dev.ratelimiter"} 1.0
                rate_limiter_backend_seconds_bucket{backend="postgres",job="shop",le="1",otel_scope_name="dev.ratelimiter"} 3.0
                rate_limiter_backend_seconds_bucket{backend="postgres",job="shop",le="+Inf",otel_scope_name="dev.ratelimiter"} 3.0
                rate_limiter_backend_seconds_sum{backend="postgres",job="shop",otel_scope_name="dev.ratelimiter"} 0.5
                rate_limiter_backend_seconds_count{backend="postgres",job="shop",otel_scope_name="dev.ratelimiter"} 3.0
                """);
    }

    private static Metric metric(String name, String kind, String unit) {
        Metric.Builder metric = Metric.newBuilder().setName(name).setUnit(unit);
        NumberDataPoint point = NumberDataPoint.newBuilder().setAsInt(1).build();
        AggregationTemporality cumulative = AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE;
        return switch (kind) {
            case "counter" -> metric.setSum(Sum.newBuilder().setIsMonotonic(true).setAggregationTemporality(cumulative)
                    .addDataPoints(point)).build();
            case "updown" -> metric.setSum(Sum.newBuilder().setIsMonotonic(false)
                    .setAggregationTemporality(cumulative).addDataPoints(point)).build();
            case "gauge" -> metric.setGauge(Gauge.newBuilder().addDataPoints(point)).build();
            case "histogram" -> metric.setHistogram(Histogram.newBuilder().setAggregationTemporality(cumulative))
                    .build();
            default -> throw new IllegalArgumentException(kind);
        };
    }

    private static KeyValue attribute(String key, String value) {
        return KeyValue.newBuilder().setKey(key).setValue(AnyValue.newBuilder().setStringValue(value)).build();
    }
}
