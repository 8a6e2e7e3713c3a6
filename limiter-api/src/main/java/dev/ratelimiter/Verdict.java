package dev.ratelimiter;

import java.time.Duration;
import java.util.Objects;

/**
 * The answer to one attempt.
 *
 * @param outcome    {@link Outcome#ALLOWED}, {@link Outcome#DENIED} or {@link Outcome#UNAVAILABLE}
 * @param limit      the bucket's limit (attempts per window)
 * @param remaining  attempts still allowed in the current window after this one, never negative
 * @param resetAfter time until the current window ends, never negative; for {@code UNAVAILABLE}, the time after
 *                   which asking again makes sense (for example the circuit breaker's remaining back-off)
 */
public record Verdict(Outcome outcome, long limit, long remaining, Duration resetAfter) {

    /** What was decided. */
    public enum Outcome {
        /** The attempt is within the limit and was counted. */
        ALLOWED,
        /** The attempt exceeds the limit; it was counted but does not extend the window. */
        DENIED,
        /** The limiter could not decide (backend failure, deadline, counter cap); the bucket's policy decides. */
        UNAVAILABLE
    }

    /**
     * A verdict, its values checked.
     *
     * @param outcome    what was decided
     * @param limit      the bucket's limit (attempts per window)
     * @param remaining  attempts still allowed in the current window, not negative
     * @param resetAfter time until the current window ends (or until asking again makes sense), not negative
     * @throws IllegalArgumentException if {@code remaining} or {@code resetAfter} is negative
     * @throws NullPointerException     if {@code outcome} or {@code resetAfter} is {@code null}
     */
    public Verdict {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(resetAfter, "resetAfter");
        if (remaining < 0) {
            throw new IllegalArgumentException("remaining must not be negative, was " + remaining);
        }
        if (resetAfter.isNegative()) {
            throw new IllegalArgumentException("resetAfter must not be negative, was " + resetAfter);
        }
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
        long seconds = resetAfter.getSeconds() + (resetAfter.getNano() > 0 ? 1 : 0);
        return Math.max(1, seconds);
    }
}
