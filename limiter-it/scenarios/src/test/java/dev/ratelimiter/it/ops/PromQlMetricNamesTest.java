package dev.ratelimiter.it.ops;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PromQlMetricNamesTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "rate_limiter_degraded | rate_limiter_degraded",
            "max by (job, instance, backend) (rate_limiter_degraded) == 1 | rate_limiter_degraded",
            "sum by (bucket, outcome) (rate(rate_limiter_decisions_total{job=~\"$job\", bucket=~\"$bucket\"}[$__rate_interval])) | rate_limiter_decisions_total",
            "sum without (mp_scope) (increase(rate_limiter_fallbacks_total{outcome=\"by\"}[5m] offset 1h)) | rate_limiter_fallbacks_total",
            "rate(rate_limiter_fail_open_total[${__rate_interval}]) > bool 0 | rate_limiter_fail_open_total",
            "max_over_time(rate(rate_limiter_fail_open_total[5m])[1h:1m]) | rate_limiter_fail_open_total",
            "count(up == 1) or vector(0) | up",
            "histogram_quantile(0.99, sum by (le) (rate(x_seconds_bucket[5m]))) | x_seconds_bucket",
            "label_replace(rate_limiter_degraded, \"dst\", \"$1\", \"src\", \"(.*)\") | rate_limiter_degraded",
            "job:rate_limiter_decisions:rate5m * 1e3 + 0x1F - .5 | job:rate_limiter_decisions:rate5m",
            "rate_limiter_degraded @ start() | rate_limiter_degraded"})
    @DisplayName("one name from selectors, none from labels, strings, ranges, functions, keywords or variables")
    void oneName(String expression, String name) {
        assertThat(PromQlMetricNames.of(expression)).containsExactly(name);
    }

    @Test
    @DisplayName("a comment names nothing")
    void comment() {
        assertThat(PromQlMetricNames.of("# rate(not_a_metric[5m])\nrate_limiter_degraded # not_either"))
                .containsExactly("rate_limiter_degraded");
    }

    @Test
    @DisplayName("a ratio, a set operation and a group_left join name every operand's series")
    void severalNames() {
        assertThat(PromQlMetricNames.of("sum by (backend) (rate(rate_limiter_backend_seconds_sum[5m]))"
                + " / on (backend) group_left (instance) sum by (backend) (rate(rate_limiter_backend_seconds_count[5m]))"
                + " unless rate_limiter_degraded and ignoring (bucket) rate_limiter_backend_errors_total"))
                .containsExactly("rate_limiter_backend_errors_total", "rate_limiter_backend_seconds_count",
                        "rate_limiter_backend_seconds_sum", "rate_limiter_degraded");
    }

    @Test
    @DisplayName("an expression without a selector names nothing")
    void noName() {
        assertThat(PromQlMetricNames.of("vector(1) + time() - scalar(vector(Inf)) * NaN")).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "rates(rate_limiter_decisions_total[5m])",
            "{__name__=~\"rate_limiter_.*\"}",
            "{\"rate_limiter.degraded\"}",
            "sum(rate(rate_limiter_decisions_total[5m])",
            "rate_limiter_degraded{backend=\"valkey}",
            "rate_limiter_degraded ; 1"})
    @DisplayName("what the scan cannot classify is refused, never passed over")
    void refused(String expression) {
        assertThatThrownBy(() -> PromQlMetricNames.of(expression)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(expression);
    }
}
