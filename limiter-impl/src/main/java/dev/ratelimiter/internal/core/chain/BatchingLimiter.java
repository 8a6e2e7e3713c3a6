package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.StoreItem;

import java.util.Arrays;
import java.util.List;

/**
 * A limiter of the outage chain that decides several items in one call, so that the buckets of a method with
 * several {@code @RateLimited} reach the store in one round trip where the store allows it
 * (docs/guide.md#several-limits-on-one-method; docs/architecture.md#the-outage-chain).
 *
 * <p>The rule, the store SPI's ({@link dev.ratelimiter.spi.RateLimitStore#consume}): the items are decided in their
 * order; the answer is one verdict per decided item, a prefix of the items. It is shorter than the items only when
 * its last verdict is a refusal: {@link Verdict.Outcome#DENIED} (later items are neither decided nor counted,
 * earlier ones keep their count) or {@link Verdict.Outcome#UNAVAILABLE}. Below the outage policy an
 * {@code UNAVAILABLE} verdict may also be followed by others of the same failed call (a store call that failed
 * fails for each of its items, an open breaker refuses each of its items); the outage policy, which turns an
 * {@code UNAVAILABLE} item into an answer of the bucket's policy, then asks again for the items no one decided.
 */
public interface BatchingLimiter extends Limiter {

    /**
     * Decides the items in order, stopping as the class comment says. The default decides them one
     * {@link #consume(dev.ratelimiter.Bucket, String, long)} call each, stopping after the first verdict that is
     * not {@link Verdict.Outcome#ALLOWED}.
     *
     * @param items one or more items, keys hashed
     * @return one verdict per decided item, in order, at least one
     */
    default Verdict[] consumeAll(List<StoreItem> items) {
        return oneByOne(this, items);
    }

    /**
     * Decides the items through {@code limiter}: its {@link #consumeAll} when it is a batching limiter, else one
     * call each.
     *
     * @param limiter any limiter
     * @param items   one or more items, keys hashed
     * @return one verdict per decided item, in order, at least one
     * @throws IllegalStateException if a batching limiter decided none of the items, against the rule
     */
    public static Verdict[] consumeAll(Limiter limiter, List<StoreItem> items) {
        if (!(limiter instanceof BatchingLimiter batching)) {
            return oneByOne(limiter, items);
        }
        Verdict[] verdicts = batching.consumeAll(items);
        if (verdicts.length == 0 || verdicts.length > items.size()) {
            // checked here, since the callers loop until every item is decided
            throw new IllegalStateException(limiter.getClass().getName() + " answered " + verdicts.length
                    + " verdicts for " + items.size() + " items");
        }
        return verdicts;
    }

    private static Verdict[] oneByOne(Limiter limiter, List<StoreItem> items) {
        Verdict[] verdicts = new Verdict[items.size()];
        for (int i = 0; i < verdicts.length; i++) {
            StoreItem item = items.get(i);
            verdicts[i] = limiter.consume(item.bucket(), item.key(), item.cost());
            if (verdicts[i].outcome() != Verdict.Outcome.ALLOWED) {
                return Arrays.copyOf(verdicts, i + 1);
            }
        }
        return verdicts;
    }
}
