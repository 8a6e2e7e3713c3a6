package dev.ratelimiter.internal.core.verdict;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.StoreRefund;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static dev.ratelimiter.spi.TokenBucketTiming.capacity;

/**
 * A verdict's cost given back (docs/guide.md#counting-failures-only): the refund a store receives, naming the
 * windows the call was counted in by their ends, and the verdict the call's headers report afterwards. The Valkey
 * script {@code refund.lua} applies such a refund.
 */
public final class Refunds {

    private Refunds() {
    }

    /**
     * The refund of a call this verdict allowed and counted, {@code elapsedMillis} after the call was decided: each
     * window's end as the verdict gave it, less the time since. A fixed window's {@code resetAfter} is its end; an
     * allowed sliding window's is its current window's end plus a window length, since it counted the call; a token
     * bucket names no window. A window that has ended by then gets 0: it is left alone.
     *
     * @param bucket        the bucket the verdict is of
     * @param key           the hashed key it counted
     * @param cost          the call's cost, 1 or more; or, negative, a cost to debit ({@link #settlement})
     * @param verdict       the {@code ALLOWED} verdict that counted it
     * @param elapsedMillis milliseconds since the call was decided (counted from before the decision), 0 or more
     * @return the refund to hand to a {@link dev.ratelimiter.internal.core.limiter.Limiter#refund}
     */
    public static StoreRefund refund(Bucket bucket, String key, long cost, Verdict verdict, long elapsedMillis) {
        int count = bucket.limits().size();
        long[] endsIn = new long[count];
        if (!bucket.isTokenBucket()) {
            for (int i = 0; i < count; i++) {
                Duration resetAfter = count == 1 ? verdict.resetAfter()
                        : verdict.windows().size() == count ? verdict.windows().get(i).resetAfter() : Duration.ZERO;
                long end = resetAfter.toMillis() - (bucket.isSlidingWindow()
                        ? bucket.limits().get(i).window().toMillis() : 0);
                endsIn[i] = Math.max(0, end - Math.max(0, elapsedMillis));
            }
        }
        return new StoreRefund(bucket, key, cost, endsIn);
    }

    /**
     * The settlement of a call this verdict allowed and counted at {@code reserved}, whose cost turned out to be
     * {@code settled} once it ran (docs/stores.md#settlements): a refund of the difference, debiting
     * (a negative cost) when the call cost more than it reserved, in the windows it was counted in, as
     * {@link #refund} names them.
     *
     * @param bucket        the bucket the verdict is of
     * @param key           the hashed key it counted
     * @param reserved      the cost counted before the call, 1 or more
     * @param settled       the call's actual cost, 0 or more; above {@code reserved} + {@link Bucket#MAX_LIMIT} it
     *                      is taken as that (a debit of the largest limit refuses the rest of the window already)
     * @param verdict       the {@code ALLOWED} verdict that counted it
     * @param elapsedMillis milliseconds since the call was decided (counted from before the decision), 0 or more
     * @return the refund to hand to a {@link dev.ratelimiter.internal.core.limiter.Limiter#refund}; empty when
     *         {@code settled} equals {@code reserved}
     * @throws IllegalArgumentException if {@code settled} is negative
     */
    public static Optional<StoreRefund> settlement(Bucket bucket, String key, long reserved, long settled,
                                                   Verdict verdict, long elapsedMillis) {
        if (settled < 0) {
            throw new IllegalArgumentException("settled cost " + settled + " is below 0");
        }
        // A debit beyond the largest limit refuses the rest of the window all the same; capped, no count overflows
        // (nor leaves the integers a Lua number holds exactly).
        long capped = Math.min(settled, reserved + Bucket.MAX_LIMIT);
        return capped == reserved ? Optional.empty()
                : Optional.of(refund(bucket, key, reserved - capped, verdict, elapsedMillis));
    }

    /**
     * The verdict a call's RateLimit headers report once its cost was given back: each window's {@code remaining}
     * raised by the cost, up to its capacity (or lowered by a debit's, down to 0), its times as they were.
     *
     * @param bucket  the verdict's bucket
     * @param verdict the {@code ALLOWED} verdict that counted the call
     * @param cost    the cost given back; negative, the cost debited
     * @return the verdict with the cost back
     */
    public static Verdict givenBack(Bucket bucket, Verdict verdict, long cost) {
        List<Verdict.Window> windows = verdict.windows();
        if (windows.isEmpty()) {
            return new Verdict(verdict.outcome(), verdict.limit(), Math.max(0, Math.min(verdict.remaining() + cost,
                    capacity(bucket, 0))), verdict.resetAfter());
        }
        Verdict.Window[] back = new Verdict.Window[windows.size()];
        long fewest = Long.MAX_VALUE; // the top-level values are the window with the fewest left, as before
        for (int i = 0; i < back.length; i++) {
            Verdict.Window window = windows.get(i);
            back[i] = new Verdict.Window(window.limit(),
                    Math.max(0, Math.min(capacity(bucket, i), window.remaining() + cost)), window.resetAfter());
            fewest = Math.min(fewest, back[i].remaining());
        }
        return new Verdict(verdict.outcome(), verdict.limit(), fewest, verdict.resetAfter(), List.of(back));
    }
}
