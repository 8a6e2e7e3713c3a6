package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.settings.QuotaLeaseSettings;

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
    /** The store's verdict of the take, which counted {@link #granted} at once. */
    Verdict taken;
    /** Attempts the store counted for this lease. */
    long granted;
    /** Attempts this replica decided from it, the take's own call among them. */
    long used;
    /** When the take was asked, before its round trip. */
    long takenAt;
    /** When the window the lease was counted in ends; unused for a token bucket, which has none. */
    long endsAt;
    /** Whether the lease ends with a window: not a token bucket's. */
    boolean windowed;
    /** When the lease was last used. */
    long lastUse;
    /** Attempts per second this replica used the key's last lease at; 0 before one. */
    double rate;
    /** Removed from its map: a caller that still holds it finds another. */
    boolean retired;

    /** {@return the attempts leased and not used} */
    long left() {
        return granted - used;
    }

    /** Whether a call needing {@code needed} attempts of {@code call}'s limits may be decided from this lease now. */
    boolean holds(Bucket call, long needed, long now) {
        return open(now) && granted - used >= needed && (call == bucket || call.equals(bucket));
    }

    /** Whether the window the lease was counted in is still open, so its unused part may be given back. */
    boolean open(long now) {
        return bucket != null && (!windowed || now - endsAt < 0); // a difference: nanoTime may be negative
    }

    /**
     * The size of the next lease: what this replica used the key at, over {@code settings.idle()} or what is left of
     * the last lease's window if it is still open and shorter, within {@code needed} (the call's own) and the bucket's
     * largest lease. The first lease of a key is the call alone: nothing is known of its rate yet.
     */
    long nextSize(QuotaLeaseSettings settings, Bucket call, long needed, long now) {
        if (bucket != null) { // two calls within a clock tick: as fast as the clock can tell
            rate = used * (double) NANOS_PER_SECOND / Math.max(1, now - takenAt);
        }
        long horizon = settings.idle().toNanos();
        if (windowed && open(now)) {
            horizon = Math.min(horizon, endsAt - now);
        }
        long byRate = (long) Math.ceil(rate * horizon / NANOS_PER_SECOND);
        return Math.max(needed, Math.min(byRate, settings.largestLease(call)));
    }

    /** Starts a lease of {@code size} attempts, which the store counted with {@code verdict}, asked at {@code asked}. */
    void start(Bucket call, Verdict verdict, long size, long asked) {
        bucket = call;
        taken = verdict;
        granted = size;
        used = 0;
        takenAt = asked;
        lastUse = asked;
        windowed = !call.isTokenBucket();
        endsAt = windowed ? asked + windowNanos(verdict) : asked;
    }

    /**
     * The verdict of a call decided from the lease: allowed, with what the store had left after the take plus what
     * this replica has not used of it (an estimate: other replicas' use since is unseen), and the take's windows'
     * times moved on by the time since.
     */
    Verdict verdict(long now) {
        long elapsed = Math.max(0, now - takenAt);
        Duration reset = taken.resetAfter().minusNanos(elapsed);
        long remaining = Math.min(taken.limit(), taken.remaining() + left());
        List<Verdict.Window> windows = taken.windows();
        return new Verdict(Verdict.Outcome.ALLOWED, taken.limit(), remaining,
                reset.isNegative() ? Duration.ZERO : reset, windows);
    }

    /** The time until the first of the verdict's windows ends: the lease holds until then. */
    private static long windowNanos(Verdict verdict) {
        if (verdict.windows().isEmpty()) {
            return verdict.resetAfter().toNanos();
        }
        long shortest = Long.MAX_VALUE;
        for (Verdict.Window window : verdict.windows()) {
            shortest = Math.min(shortest, window.resetAfter().toNanos());
        }
        return shortest;
    }
}
