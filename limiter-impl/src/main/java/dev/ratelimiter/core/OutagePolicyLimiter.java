package dev.ratelimiter.core;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.Verdict;

import java.util.Objects;
import java.util.Optional;

/**
 * Applies each bucket's {@link OutagePolicy} to the {@link Verdict.Outcome#UNAVAILABLE} verdicts of the limiter
 * it wraps; every other verdict passes through untouched.
 *
 * <ul>
 *   <li>{@code FALLBACK}: the per-process fallback limiter decides. Without one (the wrapped limiter is already
 *       the in-memory one), or when the fallback cannot decide either, the attempt is allowed as under
 *       {@code FAIL_OPEN}: there is nothing left that could count it.</li>
 *   <li>{@code FAIL_OPEN}: allowed, uncounted; {@code remaining} reports the full limit.</li>
 *   <li>{@code FAIL_CLOSED}: the {@code UNAVAILABLE} verdict is returned, for a 503.</li>
 * </ul>
 * Every answer is reported to the {@link OutageListener}. A reset clears the key in both limiters, so a reset made
 * during an outage also clears the fallback's counter.
 */
public final class OutagePolicyLimiter implements RateLimiter {

    private final RateLimiter store;
    private final Optional<RateLimiter> fallback;
    private final OutageListener listener;

    /**
     * @param store    the limiter whose outages are handled
     * @param fallback the per-process limiter for {@code FALLBACK} buckets, or empty if {@code store} is it
     * @param listener told of every attempt the policy answered
     */
    public OutagePolicyLimiter(RateLimiter store, Optional<RateLimiter> fallback, OutageListener listener) {
        this.store = Objects.requireNonNull(store, "store");
        this.fallback = Objects.requireNonNull(fallback, "fallback");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        Verdict verdict = store.consume(bucket, key, cost);
        if (verdict.outcome() != Verdict.Outcome.UNAVAILABLE) {
            return verdict;
        }
        switch (bucket.onOutage()) {
            case FAIL_CLOSED:
                listener.failClosed(bucket);
                return verdict;
            case FALLBACK:
                if (fallback.isPresent()) {
                    Verdict decided = fallback.get().consume(bucket, key, cost);
                    if (decided.outcome() != Verdict.Outcome.UNAVAILABLE) {
                        listener.fallback(bucket);
                        return decided;
                    }
                }
                return failOpen(bucket);
            case FAIL_OPEN:
            default:
                return failOpen(bucket);
        }
    }

    @Override
    public void reset(Bucket bucket, String key) {
        store.reset(bucket, key);
        fallback.ifPresent(limiter -> limiter.reset(bucket, key));
    }

    private Verdict failOpen(Bucket bucket) {
        listener.failOpen(bucket);
        return WindowVerdicts.untouched(bucket);
    }
}
