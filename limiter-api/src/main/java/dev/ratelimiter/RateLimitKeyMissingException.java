package dev.ratelimiter;

/**
 * A call refused because a bucket's key could not be found: its {@link RateLimitKeyResolver} returned
 * {@code null} or a blank key, or threw, or the request was anonymous for a {@link RateLimited.Key#PRINCIPAL}
 * key, and no {@link RateLimited#fallback()} source gave one. The library maps it to HTTP 400 with an
 * {@code application/problem+json} body naming the bucket (RFC 9457). Nothing was counted. The message names the
 * bucket, never the key; no stack trace is filled in (an expected outcome).
 */
public final class RateLimitKeyMissingException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The name of the bucket whose key is missing (serialized with the exception; never the key). */
    private final String bucket;

    /**
     * @param bucket the bucket whose key is missing
     */
    public RateLimitKeyMissingException(String bucket) {
        super("no rate-limit key for bucket '" + bucket + "'", null, false, false);
        this.bucket = bucket;
    }

    /** {@return the name of the bucket whose key is missing} */
    public String bucket() {
        return bucket;
    }
}
