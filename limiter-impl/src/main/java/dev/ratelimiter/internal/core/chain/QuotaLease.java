package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.settings.QuotaLeaseSettings;
import dev.ratelimiter.spi.TokenBucketTiming;

import java.time.Duration;
import java.util.List;

/**
 * One key's quota lease on this replica ({@link QuotaLeaseLimiter}): the attempts the store counted at once for it,
 * how many of them this replica used, and until when they hold. Guarded by its own monitor; times are a monotonic
 * clock's nanoseconds.
 */
final class QuotaLease {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** The limits the lease was taken under (a plan's, a reload's); null before the first take. */
    Bucket bucket;
    /** The store's verdict of the last take, which counted attempts of {@link #granted} at once. */
    Verdict taken;
    /** Attempts the store counted for this lease. */
    long granted;
    /** Attempts this replica decided from it, the takes' own calls among them. */
    long used;
    /** When the last take was asked, before its round trip. */
    long takenAt;
    /**
     * When the lease stops deciding: the first of its windows' ends; for a token bucket, once its tokens would have
     * refilled, so tokens taken long ago never add to a bucket full again (its burst stays within one lease).
     */
    long endsAt;
    /** When the last of its windows ends: until then its unused part may go back (a token bucket's, at any time). */
    long lastEndsAt;
    /** When the lease was last used, or made. */
    long lastUse;
    /** The most its bucket's windows hold at once (a window's limit, a token bucket's burst): remaining's cap. */
    long capacity;
    /** A take is under way, outside the lease's monitor: other calls of the key go to the store alone meanwhile. */
    boolean taking;
    /** Removed from its map: a caller that still holds it finds another. */
    boolean retired;

    QuotaLease(long now) {
        lastUse = now;
    }

    /** {@return the attempts leased and not used} */
    long left() {
        return granted - used;
    }

    /** Whether a call needing {@code needed} attempts of {@code call}'s limits may be decided from this lease now. */
    boolean holds(Bucket call, long needed, long now) {
        return deciding(now) && granted - used >= needed && sameLimits(call);
    }

    /** Whether the lease still decides: its first window has not ended (a difference: nanoTime may be negative). */
    boolean deciding(long now) {
        return bucket != null && now - endsAt < 0;
    }

    /** Whether one of the lease's windows is still open, so its unused part may be given back into it. */
    boolean returnable(long now) {
        return bucket != null && (bucket.isTokenBucket() || now - lastEndsAt < 0);
    }

    /**
     * The size of the next take: what this replica used the key at, over {@code settings.idle()}, or the rest of the
     * lease's first window if it still decides, or that window's length if it has ended; within {@code needed} (the
     * call's own) and the bucket's largest lease. The first lease of a key is the call alone: its rate is not known.
     */
    long nextSize(QuotaLeaseSettings settings, Bucket call, long needed, long now) {
        // two calls within a clock tick: as fast as the clock can tell
        double rate = bucket == null ? 0 : used * (double) NANOS_PER_SECOND / Math.max(1, now - takenAt);
        long horizon = settings.idle().toNanos();
        if (!call.isTokenBucket()) {
            horizon = Math.min(horizon, deciding(now) ? endsAt - now : call.limits().get(0).window().toNanos());
        }
        long byRate = (long) Math.ceil(rate * horizon / NANOS_PER_SECOND);
        return Math.max(needed, Math.min(byRate, settings.largestLease(call)));
    }

    /**
     * Whether a take of {@code call} adds to this lease rather than replacing it: the lease still decides under the
     * same limits, so what is left of it is counted in the same windows as the take.
     */
    boolean extendable(Bucket call, long now) {
        return deciding(now) && sameLimits(call);
    }

    /** Whether {@code call} has the limits the lease was taken under: by identity first, which is the common case. */
    private boolean sameLimits(Bucket call) {
        return call == bucket || call.equals(bucket);
    }

    /**
     * Records a take of {@code size} attempts, which the store counted with {@code verdict}, asked at {@code asked}:
     * added to the lease when {@code added}, else a new lease.
     */
    void start(Bucket call, Verdict verdict, long size, long asked, boolean added) {
        if (!added) {
            granted = 0;
            used = 0;
        }
        bucket = call;
        taken = verdict;
        granted += size;
        takenAt = asked;
        lastUse = asked;
        capacity = 0;
        for (int i = 0; i < call.limits().size(); i++) {
            capacity = Math.max(capacity, TokenBucketTiming.capacity(call, i));
        }
        if (call.isTokenBucket()) {
            endsAt = asked + refillNanos(call, granted - used);
            lastEndsAt = endsAt;
        } else {
            endsAt = asked + windowNanos(verdict, true);
            lastEndsAt = asked + windowNanos(verdict, false);
        }
    }

    /**
     * The verdict of a call decided from the lease: allowed, with what the store had left after the take plus what
     * this replica has not used of it (an estimate: other replicas' use since is unseen), at most the window's
     * capacity, and the take's windows' times moved on by the time since.
     */
    Verdict verdict(long now) {
        long elapsed = Math.max(0, now - takenAt);
        long left = left();
        List<Verdict.Window> windows = taken.windows();
        if (!windows.isEmpty()) { // a bucket of several windows: each moved on, allocated only for it
            Verdict.Window[] moved = new Verdict.Window[windows.size()];
            for (int i = 0; i < moved.length; i++) {
                Verdict.Window window = windows.get(i);
                moved[i] = new Verdict.Window(window.limit(), Math.min(TokenBucketTiming.capacity(bucket, i),
                        window.remaining() + left), later(window.resetAfter(), elapsed));
            }
            windows = List.of(moved);
        }
        return new Verdict(Verdict.Outcome.ALLOWED, taken.limit(), Math.min(capacity, taken.remaining() + left),
                later(taken.resetAfter(), elapsed), windows);
    }

    private static Duration later(Duration resetAfter, long elapsedNanos) {
        Duration reset = resetAfter.minusNanos(elapsedNanos);
        return reset.isNegative() ? Duration.ZERO : reset;
    }

    /** The time until the first (or the last) of the verdict's windows ends. */
    private static long windowNanos(Verdict verdict, boolean first) {
        if (verdict.windows().isEmpty()) {
            return verdict.resetAfter().toNanos();
        }
        long end = first ? Long.MAX_VALUE : 0;
        for (Verdict.Window window : verdict.windows()) {
            long nanos = window.resetAfter().toNanos();
            end = first ? Math.min(end, nanos) : Math.max(end, nanos);
        }
        return end;
    }

    /**
     * How long a token bucket takes to refill {@code tokens} in its fastest window, at least a microsecond's worth:
     * a lease used within it adds at most its own tokens to what the store's bucket admits at any instant.
     */
    private static long refillNanos(Bucket bucket, long tokens) {
        long interval = Long.MAX_VALUE;
        for (int i = 0; i < bucket.limits().size(); i++) {
            interval = Math.min(interval, TokenBucketTiming.tokenIntervalMicros(bucket, i));
        }
        long micros = Math.max(1, tokens) > Long.MAX_VALUE / 4_000 / interval ? Long.MAX_VALUE / 4_000
                : Math.max(1, tokens) * interval;
        return micros * 1_000;
    }
}
