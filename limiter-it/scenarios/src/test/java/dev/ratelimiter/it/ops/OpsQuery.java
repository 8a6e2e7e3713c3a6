package dev.ratelimiter.it.ops;

import java.util.Set;

/**
 * One PromQL expression that an operator's file ships: a dashboard panel's query, a dashboard variable's query or
 * an alert rule's {@code expr}.
 *
 * @param where      where it is, for a failure message ({@code rate-limiter-dashboard.json: panel "Circuit
 *                   breaker", query A})
 * @param expression the PromQL expression, Grafana variables and all
 */
public record OpsQuery(String where, String expression) {

    /**
     * @return the metric names the expression selects ({@link PromQlMetricNames})
     * @throws IllegalArgumentException naming this query when its expression cannot be read
     */
    public Set<String> metricNames() {
        try {
            return PromQlMetricNames.of(expression);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }
}
