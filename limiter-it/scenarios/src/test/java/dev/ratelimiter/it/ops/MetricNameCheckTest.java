package dev.ratelimiter.it.ops;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The check that fails the server modules' builds when a query names a series the server does not expose. */
class MetricNameCheckTest {

    /** What Micrometer's Prometheus registry exposes on Quarkus (shortened): a counter, a gauge and a timer. */
    private static final String MICROMETER = """
            # HELP rate_limiter_decisions_total Decisions per bucket and outcome, after the outage policy
            # TYPE rate_limiter_decisions_total counter
            rate_limiter_decisions_total{bucket="login",outcome="allowed"} 3.0
            # HELP rate_limiter_degraded 1 while the store is out and buckets follow their outage policy, else 0
            # TYPE rate_limiter_degraded gauge
            rate_limiter_degraded{backend="memory"} 0.0
            # TYPE rate_limiter_backend_seconds summary
            rate_limiter_backend_seconds_count{backend="memory"} 0
            rate_limiter_backend_seconds_sum{backend="memory"} 0.0
            # TYPE rate_limiter_backend_seconds_max gauge
            rate_limiter_backend_seconds_max{backend="memory"} 0.0
            """;

    /** Another exporter's scrape in OpenMetrics, with mp_scope: family names lose _total, samples keep it. */
    private static final String OPEN_METRICS = """
            # TYPE rate_limiter_decisions counter
            rate_limiter_decisions_total{bucket="login",mp_scope="application",outcome="allowed"} 3.0
            # TYPE rate_limiter_degraded gauge
            rate_limiter_degraded{backend="memory",mp_scope="application",} 0.0
            # EOF
            """;

    @Test
    @DisplayName("sample names are read with their suffixes, not the # TYPE family names")
    void sampleNames() {
        assertThat(ScrapedSeries.names(MICROMETER)).containsExactly("rate_limiter_backend_seconds_count",
                "rate_limiter_backend_seconds_max", "rate_limiter_backend_seconds_sum", "rate_limiter_decisions_total",
                "rate_limiter_degraded");
        assertThat(ScrapedSeries.names(OPEN_METRICS)).containsExactly("rate_limiter_decisions_total",
                "rate_limiter_degraded");
    }

    @Test
    @DisplayName("queries naming exposed series pass")
    void exposedNamesPass() {
        List<OpsQuery> queries = List.of(
                new OpsQuery("panel A", "sum by (bucket, outcome) (rate(rate_limiter_decisions_total[5m]))"),
                new OpsQuery("panel B", "rate(rate_limiter_backend_seconds_sum[5m])"
                        + " / rate(rate_limiter_backend_seconds_count[5m])"),
                new OpsQuery("alert C", "max by (job, instance, backend) (rate_limiter_degraded) == 1"));
        assertThat(MetricNameCheck.missing(queries, ScrapedSeries.names(MICROMETER))).isEmpty();
    }

    @Test
    @DisplayName("a renamed or misspelt series is reported, naming the query")
    void wrongNameFails() {
        List<OpsQuery> queries = List.of(
                new OpsQuery("panel A", "sum by (bucket) (rate(rate_limiter_decision_total[5m]))"),
                new OpsQuery("alert B", "max(rate_limiter_degraded) == 1"));
        assertThat(MetricNameCheck.missing(queries, ScrapedSeries.names(MICROMETER)))
                .containsExactly("panel A: rate_limiter_decision_total");
    }

    @Test
    @DisplayName("suffixes are compared as exported: a family name without _total, a _bucket no exporter writes, "
            + "a _max that one scrape has and the other lacks")
    void suffixesCompared() {
        List<OpsQuery> queries = List.of(
                new OpsQuery("panel A", "rate(rate_limiter_decisions[5m])"),
                new OpsQuery("panel B", "histogram_quantile(0.99, rate(rate_limiter_backend_seconds_bucket[5m]))"),
                new OpsQuery("panel C", "rate_limiter_backend_seconds_max"));
        assertThat(MetricNameCheck.missing(queries, ScrapedSeries.names(MICROMETER))).containsExactly(
                "panel A: rate_limiter_decisions", "panel B: rate_limiter_backend_seconds_bucket");
        assertThat(MetricNameCheck.missing(queries, ScrapedSeries.names(OPEN_METRICS))).containsExactly(
                "panel A: rate_limiter_decisions", "panel B: rate_limiter_backend_seconds_bucket",
                "panel C: rate_limiter_backend_seconds_max");
    }

    @Test
    @DisplayName("queries that name no series are a check of nothing, refused")
    void nothingChecked() {
        assertThatThrownBy(() -> MetricNameCheck.missing(List.of(new OpsQuery("panel A", "vector(0)")),
                Set.of("rate_limiter_degraded"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("an unreadable query fails naming where it is")
    void unreadableQuery() {
        assertThatThrownBy(() -> MetricNameCheck.missing(List.of(new OpsQuery("panel A", "rates(x[5m])")),
                Set.of("x"))).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("panel A: ");
    }
}
