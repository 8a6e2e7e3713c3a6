package dev.ratelimiter.internal.core.window;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;

import java.time.Duration;
import java.util.function.LongFunction;

/**
 * The two verdicts of {@link WindowVerdicts} that take what the in-memory store keeps per key instead of computing it
 * per call (a token bucket's fill time, a sliding window's last {@code resetAfter}), for that store's package
 * ({@code core.memory}): they are package-private in {@link WindowVerdicts}, where only a store that keeps such
 * numbers should call them. Each forwards, and is inlined where the hot path calls it.
 */
public final class MemoryStoreVerdicts {

    private MemoryStoreVerdicts() {
    }

    /**
     * {@link WindowVerdicts#tokenSingle(Bucket, long, boolean, long, long)} with the time the bucket takes to fill,
     * which the store computes once per key rather than dividing per call.
     *
     * @param fillMillis the milliseconds the bucket takes to fill from empty, rounded up
     * @return ALLOWED or DENIED
     */
    public static Verdict tokenSingle(Bucket bucket, long cost, boolean allowed, long remaining, long fullMillis,
                                      long fillMillis) {
        return WindowVerdicts.tokenSingle(bucket, cost, allowed, remaining, fullMillis, fillMillis);
    }

    /**
     * {@link WindowVerdicts#slidingSingle(Bucket, long, boolean, long, long, long)} with the verdict's
     * {@code resetAfter} from {@code durations}, which keep the last one rather than allocating one per call.
     *
     * @return ALLOWED or DENIED
     */
    public static Verdict slidingSingle(Bucket bucket, long cost, boolean allowed, long current, long previous,
                                        long endMillis, LongFunction<Duration> durations) {
        return WindowVerdicts.slidingSingle(bucket, cost, allowed, current, previous, endMillis, durations);
    }
}
