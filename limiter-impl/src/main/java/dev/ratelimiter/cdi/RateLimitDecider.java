package dev.ratelimiter.cdi;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitDenied;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.core.Backend;
import dev.ratelimiter.core.CounterKeys;
import dev.ratelimiter.core.KeyNormalizer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;

/**
 * The one path every decision takes, from the interceptor, the global filter and the {@code RateLimits} facade:
 * normalize the raw key, hash it, count it, and fire {@link RateLimitDenied} on a denial (with the key's
 * HMAC-SHA-256 or SHA-256, whichever hash it was counted under: {@link CounterKeys}).
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
     * @return the verdict after the bucket's outage policy; {@code UNAVAILABLE} only for a fail-closed outage
     */
    public Verdict decide(Bucket bucket, CharSequence rawKey, KeyNormalization normalization) {
        CounterKeys keys = runtime.keys();
        String normalized = KeyNormalizer.normalize(rawKey, normalization);
        String key = keys.counterKey(normalized);
        Verdict verdict = runtime.limiter().consume(bucket, key);
        runtime.metrics().decision(bucket, verdict.outcome());
        if (verdict.outcome() == Verdict.Outcome.DENIED) {
            denials.fire(new RateLimitDenied(bucket, keys.eventKey(normalized, key), verdict));
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
        runtime.limiter().reset(bucket, runtime.keys().counterKey(KeyNormalizer.normalize(rawKey, normalization)));
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
