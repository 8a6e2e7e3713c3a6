package dev.ratelimiter;

/**
 * What a bucket decides when its limiter cannot answer: the shared store is unreachable, its deadline passed,
 * or the in-memory limiter holds as many live counters as {@code ratelimiter.memory.max-keys} allows.
 *
 * <p>Configured per bucket with {@code ratelimiter.buckets.<name>.on-outage}; both {@code fail-open} and
 * {@code FAIL_OPEN} spellings are accepted.
 */
public enum OutagePolicy {
    /**
     * Decide with a per-process in-memory limiter holding the same buckets (the default). Limits then hold per
     * process: N replicas admit up to N x limit. Where no further limiter exists (the in-memory backend itself
     * is at its cap), the attempt is allowed as with {@link #FAIL_OPEN}.
     */
    FALLBACK,
    /** Allow the attempt without counting it. */
    FAIL_OPEN,
    /** Refuse the attempt: HTTP 503 with {@code Retry-After}. */
    FAIL_CLOSED;

    /**
     * Parses a configuration value.
     *
     * @param value {@code fallback}, {@code fail-open}, {@code fail-closed}, in any case, with {@code -} or
     *              {@code _}; surrounding white space is ignored
     * @return the policy
     * @throws IllegalArgumentException if the value names no policy; the message lists the accepted values
     */
    public static OutagePolicy parse(String value) {
        String normalized = value == null ? "" : value.strip().replace('-', '_').toUpperCase(java.util.Locale.ROOT);
        for (OutagePolicy policy : values()) {
            if (policy.name().equals(normalized)) {
                return policy;
            }
        }
        throw new IllegalArgumentException(
                "'" + value + "' is not an outage policy; use fallback, fail-open or fail-closed");
    }
}
