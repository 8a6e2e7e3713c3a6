package dev.ratelimiter.cdi;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitDenied;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.core.Backend;
import dev.ratelimiter.core.KeyNormalizer;
import dev.ratelimiter.core.ShadowMode;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;

/**
 * The one path every decision takes, from the interceptor, the global filter and the {@code RateLimits} facade:
 * normalize the raw key, hash it, count it, and fire {@link RateLimitDenied} on a denial. A refusal of a bucket in
 * shadow mode is turned into a verdict that lets the call go on ({@link ShadowMode}), and fires no event: the
 * README's "Shadow mode".
 */
@ApplicationScoped
public class RateLimitDecider {

    @Inject
    LimiterConfiguration configuration;

    @Inject
    LimiterRuntime runtime;

    @Inject
    Event<RateLimitDenied> denials;

    /**
     * Counts one attempt.
     *
     * @return the verdict after the bucket's outage policy; {@code UNAVAILABLE} only for a fail-closed outage. For
     *         a bucket in shadow mode never {@code DENIED} nor {@code UNAVAILABLE}: a refusal comes back
     *         {@code ALLOWED} with {@code remaining} 0 and the window's {@code resetAfter}
     */
    public Verdict decide(Bucket bucket, CharSequence rawKey, KeyNormalization normalization) {
        String key = hashedKey(rawKey, normalization);
        Verdict verdict = runtime.limiter().consume(bucket, key);
        if (verdict.outcome() != Verdict.Outcome.ALLOWED && runtime.shadow().covers(bucket)) {
            return runtime.shadow().letThrough(bucket, key, verdict);
        }
        runtime.metrics().decision(bucket, verdict.outcome());
        if (verdict.outcome() == Verdict.Outcome.DENIED) {
            denials.fire(new RateLimitDenied(bucket, key, verdict));
        }
        return verdict;
    }

    /**
     * Whether a decision makes a network round trip (Valkey or PostgreSQL), so must not run on a thread that may
     * not block, such as a Vert.x event loop. In-memory decisions never block.
     */
    public boolean blocking() {
        return configuration.settings().backend() != Backend.MEMORY;
    }

    /** Clears one raw key's counter; never throws for a backend failure. */
    public void reset(Bucket bucket, CharSequence rawKey, KeyNormalization normalization) {
        runtime.limiter().reset(bucket, hashedKey(rawKey, normalization));
    }

    private String hashedKey(CharSequence rawKey, KeyNormalization normalization) {
        return runtime.hasher().hash(KeyNormalizer.normalize(rawKey, normalization));
    }

    /**
     * The configured bucket.
     *
     * @throws IllegalArgumentException naming the properties to set, if the bucket is not configured
     */
    public Bucket bucket(String name) {
        return configuration.settings().bucket(name).orElseThrow(() -> new IllegalArgumentException(
                "bucket '" + name + "' is not configured; set ratelimiter.buckets." + name
                        + ".limit and ratelimiter.buckets." + name + ".window"));
    }
}
