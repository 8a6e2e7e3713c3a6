package dev.ratelimiter;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The answer to one attempt.
 *
 * <p>The top-level {@code limit}, {@code remaining} and {@code resetAfter} describe one window of the bucket: its
 * only window; with several windows, for {@code DENIED} the refusing window that ends last (so
 * {@code resetAfter} is when the same call may pass), else the window with the fewest attempts left.
 * {@link #windows()} lists every window of a bucket that has several.
 *
 * @param outcome    {@link Outcome#ALLOWED}, {@link Outcome#DENIED} or {@link Outcome#UNAVAILABLE}
 * @param limit      that window's limit (attempts per window); 0 only for a key on the bucket's deny list
 *                   ({@link #denyListed(Duration)}, docs/guide.md#allow-and-deny-lists)
 * @param remaining  attempts still allowed in that window after this call, never negative; a refused call
 *                   consumes nothing, so a cost-10 call refused with 5 left says 5; for a token bucket, its whole
 *                   tokens left (up to its burst, which may be above its limit)
 * @param resetAfter time until that window ends, never negative; for a token bucket, until it is full again, and
 *                   for its refusal until the same call would be allowed (docs/guide.md#token-buckets); for a
 *                   sliding window, until every counted call has slid out (up to two window lengths), and for its
 *                   refusal until the same call would be allowed (docs/guide.md#sliding-windows); for
 *                   {@code UNAVAILABLE}, the time after which asking again makes sense (for example the circuit
 *                   breaker's remaining back-off)
 * @param windows    each window's state, in the bucket's order (shortest window first), when the bucket has
 *                   several windows and a store decided; empty otherwise (one window: the top-level values are
 *                   its own; {@code UNAVAILABLE} and the outage policies' answers). Unmodifiable.
 */
public record Verdict(Outcome outcome, long limit, long remaining, Duration resetAfter, List<Window> windows) {

    /**
     * One window's state after a decision.
     *
     * @param limit      the window: its limit and length
     * @param remaining  attempts still allowed in it after this call, not negative
     * @param resetAfter time until it ends, not negative (its whole length when it has not opened yet); for a token
     *                   bucket until it is full, for a sliding window until its counted calls have slid out
     */
    public record Window(Limit limit, long remaining, Duration resetAfter) {

        /**
         * One window's state, its values checked.
         *
         * @param limit      the window: its limit and length
         * @param remaining  attempts still allowed in it after this call, not negative
         * @param resetAfter time until it ends, not negative
         * @throws IllegalArgumentException if {@code remaining} or {@code resetAfter} is negative
         * @throws NullPointerException     if {@code limit} or {@code resetAfter} is {@code null}
         */
        public Window {
            Objects.requireNonNull(limit, "limit");
            Objects.requireNonNull(resetAfter, "resetAfter");
            if (remaining < 0 || resetAfter.isNegative()) {
                throw new IllegalArgumentException("remaining and resetAfter must not be negative, were "
                        + remaining + " and " + resetAfter);
            }
        }

        /** {@return seconds until the window ends, rounded up, at least 1: as {@link Verdict#retryAfterSeconds()}} */
        public long resetSeconds() {
            return roundUpSeconds(resetAfter);
        }
    }

    /** What was decided. */
    public enum Outcome {
        /** The attempt is within every window's limit and was counted in each (its cost; 0 counts nothing). */
        ALLOWED,
        /** The attempt would exceed a window's limit; it was counted in none and extends no window. */
        DENIED,
        /** The limiter could not decide (backend failure, deadline, counter cap); the bucket's policy decides. */
        UNAVAILABLE
    }

    /**
     * A verdict, its values checked.
     *
     * @param outcome    what was decided
     * @param limit      the window's limit (attempts per window)
     * @param remaining  attempts still allowed in the window, not negative
     * @param resetAfter time until the window ends (or until asking again makes sense), not negative
     * @param windows    every window's state for a bucket of several windows, else empty; copied
     * @throws IllegalArgumentException if {@code remaining} or {@code resetAfter} is negative
     * @throws NullPointerException     if {@code outcome}, {@code resetAfter} or {@code windows} is {@code null}
     */
    public Verdict {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(resetAfter, "resetAfter");
        windows = List.copyOf(windows); // the same instance for List.of(): no allocation for a one-window verdict
        if (remaining < 0) {
            throw new IllegalArgumentException("remaining must not be negative, was " + remaining);
        }
        if (resetAfter.isNegative()) {
            throw new IllegalArgumentException("resetAfter must not be negative, was " + resetAfter);
        }
    }

    /**
     * A verdict of one window (or of none: {@code UNAVAILABLE}), with no {@link #windows()}.
     *
     * @param outcome    what was decided
     * @param limit      the window's limit
     * @param remaining  attempts still allowed in the window, not negative
     * @param resetAfter time until the window ends (or until asking again makes sense), not negative
     * @throws IllegalArgumentException if {@code remaining} or {@code resetAfter} is negative
     * @throws NullPointerException     if {@code outcome} or {@code resetAfter} is {@code null}
     */
    public Verdict(Outcome outcome, long limit, long remaining, Duration resetAfter) {
        this(outcome, limit, remaining, resetAfter, List.of());
    }

    /**
     * An allowed attempt.
     *
     * @param limit      the bucket's limit
     * @param remaining  attempts still allowed in the window after this one, not negative
     * @param resetAfter time until the window ends, not negative
     * @return an {@link Outcome#ALLOWED} verdict
     */
    public static Verdict allowed(long limit, long remaining, Duration resetAfter) {
        return new Verdict(Outcome.ALLOWED, limit, remaining, resetAfter);
    }

    /**
     * A denied attempt: {@code remaining} is 0.
     *
     * @param limit      the bucket's limit
     * @param resetAfter time until the window ends, not negative
     * @return a {@link Outcome#DENIED} verdict
     */
    public static Verdict denied(long limit, Duration resetAfter) {
        return new Verdict(Outcome.DENIED, limit, 0, resetAfter);
    }

    /**
     * The refusal of a key on the bucket's deny list ({@code ratelimiter.buckets.<name>.deny}): {@code DENIED} with
     * {@code limit} and {@code remaining} 0, decided without a store call (docs/guide.md#allow-and-deny-lists).
     *
     * @param resetAfter how long a client should wait before asking again, not negative: the library gives the
     *                   bucket's longest window, as the list may change meanwhile (docs/live-limits.md)
     * @return a {@link Outcome#DENIED} verdict of limit 0
     */
    public static Verdict denyListed(Duration resetAfter) {
        return new Verdict(Outcome.DENIED, 0, 0, resetAfter);
    }

    /** {@return whether this is the refusal of a key on the bucket's deny list: {@code DENIED} with limit 0} */
    public boolean isDenyListed() {
        return outcome == Outcome.DENIED && limit == 0;
    }

    /**
     * The limiter could not decide.
     *
     * @param limit      the bucket's limit
     * @param retryAfter when asking again makes sense; {@link Duration#ZERO} when unknown
     * @return an {@link Outcome#UNAVAILABLE} verdict with {@code remaining} 0
     */
    public static Verdict unavailable(long limit, Duration retryAfter) {
        return new Verdict(Outcome.UNAVAILABLE, limit, 0, retryAfter);
    }

    /** {@return {@code true} for {@link Outcome#ALLOWED}} */
    public boolean isAllowed() {
        return outcome == Outcome.ALLOWED;
    }

    /**
     * Seconds a client should wait before trying again, for the {@code Retry-After} header (RFC 9110 §10.2.3):
     * {@code resetAfter} rounded up to whole seconds, and at least 1.
     *
     * @return seconds, at least 1
     */
    public long retryAfterSeconds() {
        return roundUpSeconds(resetAfter);
    }

    private static long roundUpSeconds(Duration duration) {
        long seconds = duration.getSeconds() + (duration.getNano() > 0 ? 1 : 0);
        return Math.max(1, seconds);
    }
}
