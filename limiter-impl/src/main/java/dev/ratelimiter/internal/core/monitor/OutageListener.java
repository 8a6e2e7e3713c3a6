package dev.ratelimiter.internal.core.monitor;

import dev.ratelimiter.Bucket;

/**
 * Told of every attempt that the limiter could not decide, once the bucket's outage policy has answered it.
 * Implementations count; they must be cheap and must not throw.
 */
public interface OutageListener {

    /** A listener that does nothing. */
    OutageListener NONE = new OutageListener() {
    };

    /** The per-process fallback limiter decided the attempt. */
    default void fallback(Bucket bucket) {
    }

    /** The attempt was allowed without being counted. */
    default void failOpen(Bucket bucket) {
    }

    /** The attempt was refused because the bucket fails closed. */
    default void failClosed(Bucket bucket) {
    }
}
