package dev.ratelimiter.spi;

import dev.ratelimiter.Bucket;

/**
 * A shared store made of parts that fail on their own, such as the masters of a Valkey cluster, each holding the
 * counters of its slots. The circuit breaker keeps one state per part, so one master down does not send the keys
 * of the others to the outage policy (docs/operations.md#when-a-shared-store-fails).
 */
public interface StoreParts {

    /**
     * The part holding the counter of {@code (bucket, key)} now, by a name fit for readiness data and logs
     * ({@code host:port}). Called before each decision, so it must be cheap (no round trip) and never throw.
     *
     * @param key the hashed key, as the store receives it
     */
    String partOf(Bucket bucket, String key);

    /**
     * The breaker's probe of one part: what a decision needs of it, with a decision's deadline; a part that no
     * longer holds any counter (its slots moved) passes.
     *
     * @throws Exception any failure: the part is still unavailable
     */
    void probe(String part) throws Exception;
}
