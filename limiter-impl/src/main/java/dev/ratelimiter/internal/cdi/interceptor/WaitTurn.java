package dev.ratelimiter.internal.cdi.interceptor;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimitException;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.decision.RateLimitDecider;
import dev.ratelimiter.internal.core.decision.RawKey;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics.WaitOutcome;
import dev.ratelimiter.internal.core.verdict.Reservations;

import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

/**
 * One call's turn to wait for its first bucket: its place among the bucket's waiting calls, its deadline, and
 * the verdict the bucket gave it last ({@link #accept}, as a recorder of the call's verdicts).
 */
final class WaitTurn implements BiConsumer<Bucket, Verdict> {

    private final InstantSource clock;
    private final RateLimitDecider decider;
    private final Bucket bucket;
    private final RawKey key;
    private final long cost;
    private final long deadline; // epoch milliseconds of the library's clock
    // The bucket's count of waiting calls, held while the call has its place: null once released, or when there was
    // none. Released from whichever thread ends the call first (a worker, a cancelled or stopped stage), once.
    private final AtomicReference<AtomicInteger> place;
    private Bucket decided; // the first bucket as decided (under the call's plan), and its last verdict
    private Verdict verdict;
    long waitedMillis; // read and added to by WaitingCalls, on the one thread that runs the call at a time
    private boolean interrupted;
    private int pauses;
    RateLimitExceededException overdue; // a reservation given back: its wait ended past the deadline

    WaitTurn(Bucket bucket, RawKey key, long cost, AtomicInteger place, long deadline, InstantSource clock,
             RateLimitDecider decider) {
        this.clock = clock;
        this.decider = decider;
        this.bucket = bucket;
        this.key = key;
        this.cost = cost;
        this.place = new AtomicReference<>(place);
        this.deadline = deadline;
    }

    /** Whether every place was taken: the call is refused at once ({@link #refusal()}). */
    boolean full() {
        return place.get() == null && deadline == 0;
    }

    /**
     * The refusal of a call that found every place taken: the bucket's limit, nothing remaining, and its
     * max-wait to wait before trying again.
     */
    RateLimitExceededException refusal() {
        return new RateLimitExceededException(bucket, Verdict.denied(bucket.limit(), bucket.maxWait()));
    }

    /** The refusal of a call whose wait was interrupted: the bucket's limit, and its max-wait to wait. */
    RateLimitExceededException interrupted() {
        interrupted = true;
        return refusal();
    }

    /** Keeps the first bucket's verdict: the decision path records each bucket's, in order. */
    @Override
    public void accept(Bucket decided, Verdict verdict) {
        if (decided.name().equals(bucket.name())) {
            this.decided = decided;
            this.verdict = verdict;
        }
    }

    /**
     * How long the call waits after a decision: for an admitted call, its reservation's wait (0: none); for a
     * refusal by the bucket's own limits, its {@code resetAfter} if that ends by the deadline.
     *
     * @param refusal the decision's refusal, or {@code null} if it admitted the call
     * @return milliseconds, or -1 when the call does not wait: admitted without a reservation, or a refusal to
     *         return as it is
     */
    long pauseMillis(RateLimitException refusal) {
        if (refusal == null) {
            long wait = verdict == null ? 0 : Reservations.waitOf(decided, verdict).toMillis();
            if (wait > 0 && pauses > 0 && clock.millis() + wait > deadline) {
                // Reserved after a refusal was waited out, past the bound: given back, and refused
                overdue = new RateLimitExceededException(decided, decider.waits().unreserve(decided, key, cost, verdict));
                return -1;
            }
            pauses += wait > 0 ? 1 : 0;
            return wait > 0 ? wait : -1;
        }
        if (!(refusal instanceof RateLimitExceededException) || !refusal.bucket().name().equals(bucket.name())
                || refusal.verdict().isDenyListed() || place.get() == null) {
            return -1;
        }
        long wait = refusal.verdict().resetAfter().toMillis();
        if (clock.millis() + wait > deadline) {
            return -1;
        }
        pauses++;
        return Math.max(wait, 1);
    }

    /**
     * Gives the call's place back and counts how its wait ended, if it waited or was refused with a turn: a call
     * admitted without a wait counts nothing. Idempotent.
     *
     * @param refusal the call's last refusal, or {@code null} if it runs
     */
    void finish(RateLimitException refusal) {
        boolean held = release();
        WaitOutcome outcome = full() ? WaitOutcome.FULL
                : interrupted ? WaitOutcome.INTERRUPTED
                : refusal == null ? (waitedMillis > 0 ? WaitOutcome.ADMITTED : null)
                : refusal instanceof RateLimitExceededException && refusal.bucket().name().equals(bucket.name())
                        && !refusal.verdict().isDenyListed() ? WaitOutcome.TIMED_OUT : null;
        if (outcome != null && (held || outcome == WaitOutcome.FULL)) {
            decider.waits().waited(bucket, outcome, waitedMillis);
        }
    }

    /**
     * Gives the call's place back; idempotent, and safe from any thread.
     *
     * @return whether this call gave it back: false when it was given back before, or the call had none
     */
    boolean release() {
        AtomicInteger held = place.getAndSet(null);
        if (held != null) {
            held.decrementAndGet();
            return true;
        }
        return false;
    }
}
