package dev.ratelimiter;

import java.util.OptionalLong;

/**
 * Reads a call's actual cost from what the method returned, for a bucket whose cost is settled after the call
 * ({@link RateLimited#settle()}): the tokens a language model reports in its answer, the rows an export wrote, the
 * bytes of a download. Implement it as a CDI bean (usually {@code @ApplicationScoped}) and name its class in
 * {@link RateLimited#costResolver()}; see docs/guide.md#costs-settled-after-the-call.
 *
 * <p>When it runs: once the method has returned (a {@code CompletionStage} or Mutiny {@code Uni}, once it completed
 * with an item), on the thread that ends the call; never for a call that threw or failed. A cost given from the
 * method through {@link RateLimitCosts#settle} wins over it. An exception it throws is logged once per resolver and
 * leaves the reservation in force; it never reaches the caller.
 */
@FunctionalInterface
public interface RateLimitCostResolver {

    /**
     * The call's actual cost in one bucket.
     *
     * @param bucket the bucket being settled, as in {@code ratelimiter.buckets.<name>}
     * @param result what the method returned: the value, the item a {@code CompletionStage} or {@code Uni}
     *               completed with, or {@code null} (a {@code void} method, a {@code null} value)
     * @return the cost, in the bucket's units, 0 or more; empty when the result does not tell, so the call keeps
     *         what it reserved ({@link RateLimited#cost()})
     */
    OptionalLong cost(String bucket, Object result);
}
