package dev.ratelimiter.it.ops;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Compares the metric names the operators' queries use with the series a running server exposes, so a renamed
 * series (or a query that names one wrongly) fails the build instead of showing an empty panel or never alerting.
 */
public final class MetricNameCheck {

    private MetricNameCheck() {
    }

    /**
     * @param queries the queries ({@link OpsQueries#shipped()})
     * @param scraped the series names a server exposes ({@link ScrapedSeries#names(String)})
     * @return one line per name a query uses that the server does not expose, naming the query
     *         ({@code rate-limiter-alerts.yml: group rate-limiter, rule RateLimiterDegraded: rate_limiter_degrade}),
     *         empty when every name is exposed
     * @throws IllegalArgumentException when a query cannot be read, or when the queries use no name at all (a
     *                                  check of nothing)
     */
    public static List<String> missing(List<OpsQuery> queries, Set<String> scraped) {
        List<String> missing = new ArrayList<>();
        int used = 0;
        for (OpsQuery query : queries) {
            for (String name : query.metricNames()) {
                used++;
                if (!scraped.contains(name)) {
                    missing.add(query.where() + ": " + name);
                }
            }
        }
        if (used == 0) {
            throw new IllegalArgumentException("the queries use no metric name: " + queries);
        }
        return missing;
    }
}
