package dev.ratelimiter;

/**
 * CDI event fired synchronously on every denial, by the interceptor, the global filter and {@link RateLimits}.
 * Observe it for lockout hooks or audit: {@code void onDenied(@Observes RateLimitDenied denied)}.
 *
 * <p>Not fired for a bucket in shadow mode ({@code ratelimiter.buckets.<name>.mode=shadow}): its call goes on, so
 * nothing was denied; its would-be refusals show in the metrics ({@code outcome="shadow_denied"}) and the log.
 *
 * @param bucket    the bucket whose limit was reached
 * @param hashedKey the key after normalization and hashing (HMAC-SHA-256 or SHA-256, base64url without
 *                  padding); never the login, principal name or address in clear
 * @param verdict   the denial
 */
public record RateLimitDenied(Bucket bucket, String hashedKey, Verdict verdict) {
}
