package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.cdi.call.AppliedLimits.Applied;

import java.util.ArrayList;
import java.util.List;

/**
 * Formats the RateLimit header fields of draft-ietf-httpapi-ratelimit-headers-10 (Structured Field lists, RFC
 * 9651), one item per window of each bucket consulted during the request:
 * <pre>
 * RateLimit-Policy: "api-anonymous";q=120;w=60
 * RateLimit: "api-anonymous";r=119;t=60
 * </pre>
 * {@code q} is the limit, {@code w} the window in seconds, {@code r} the remaining attempts and {@code t} the
 * seconds until the window ends (rounded up, as Retry-After). A bucket of one window is one item named after the
 * bucket; a bucket of several windows gives one item per window, named {@code <bucket>-<window>}
 * ({@link Limit#windowName()}: {@code "projects-1s"}, {@code "projects-1h"}), shortest window first:
 * <pre>
 * RateLimit-Policy: "projects-1s";q=10;w=1, "projects-1h";q=1000;w=3600
 * RateLimit: "projects-1s";r=9;t=1, "projects-1h";r=999;t=3600
 * </pre>
 * Without each window's state (an outage's 503), every window of the bucket shows the verdict's own {@code r}
 * and {@code t}. A {@link dev.ratelimiter.CalendarWindow calendar window} has no {@code w} (the draft makes it
 * optional, and a day or a month has no one length in seconds: 23 to 25 hours, 28 to 31 days); its {@code t}
 * counts to the period's boundary, and its item is named after the bucket:
 * <pre>
 * RateLimit-Policy: "reports-monthly";q=1000
 * RateLimit: "reports-monthly";r=999;t=1296000
 * </pre>
 */
public final class RateLimitHeaders {

    /** The policy field's name. */
    public static final String POLICY = "RateLimit-Policy";
    /** The current-state field's name. */
    public static final String RATE_LIMIT = "RateLimit";

    private RateLimitHeaders() {
    }

    /**
     * The policy names a refusal's problem body lists in {@code violated-policies}, as {@code RateLimit-Policy}
     * names them: the bucket's name for a bucket of one window; for several, the refusing window the verdict
     * describes and every window with as few attempts left (all windows when the verdict lists none, as an outage
     * policy's answer).
     */
    public static List<String> violatedPolicies(Bucket bucket, Verdict verdict) {
        if (!bucket.hasSeveralWindows()) {
            return List.of(bucket.name());
        }
        List<String> names = new ArrayList<>();
        if (verdict.windows().isEmpty()) {
            bucket.limits().forEach(limit -> names.add(itemName(bucket, limit)));
        } else {
            for (Verdict.Window window : verdict.windows()) {
                if (window.remaining() <= verdict.remaining()) {
                    names.add(itemName(bucket, window.limit()));
                }
            }
        }
        return names;
    }

    /** The {@code RateLimit-Policy} value for these verdicts. */
    public static String policy(List<Applied> applied) {
        StringBuilder value = new StringBuilder();
        for (Applied a : applied) {
            for (Limit limit : a.bucket().limits()) {
                separate(value).append('"').append(itemName(a.bucket(), limit)).append("\";q=").append(limit.limit());
                // A calendar period has no fixed length, and a concurrency bucket counts calls in flight, not a
                // window: the draft makes w optional
                if (!limit.isCalendar() && !a.bucket().isConcurrency()) {
                    value.append(";w=").append(limit.windowSeconds());
                }
            }
        }
        return value.toString();
    }

    /** The {@code RateLimit} value for these verdicts. */
    public static String rateLimit(List<Applied> applied) {
        StringBuilder value = new StringBuilder();
        for (Applied a : applied) {
            Verdict verdict = a.verdict();
            if (verdict.windows().isEmpty()) {
                for (Limit limit : a.bucket().limits()) {
                    separate(value).append('"').append(itemName(a.bucket(), limit)).append("\";r=")
                            .append(verdict.remaining()).append(";t=").append(verdict.retryAfterSeconds());
                }
            } else {
                for (Verdict.Window window : verdict.windows()) {
                    separate(value).append('"').append(itemName(a.bucket(), window.limit())).append("\";r=")
                            .append(window.remaining()).append(";t=").append(window.resetSeconds());
                }
            }
        }
        return value.toString();
    }

    /** {@code <bucket>} for a bucket of one window, {@code <bucket>-<window>} for each of several. */
    static String itemName(Bucket bucket, Limit limit) {
        return bucket.hasSeveralWindows() ? bucket.name() + "-" + limit.windowName() : bucket.name();
    }

    private static StringBuilder separate(StringBuilder value) {
        return value.isEmpty() ? value : value.append(", ");
    }
}
