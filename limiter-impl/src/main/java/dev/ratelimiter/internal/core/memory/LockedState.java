package dev.ratelimiter.internal.core.memory;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;

/**
 * A key's state of several windows, decided under its own lock, so they are decided together and a refusal by one
 * counts in none (docs/guide.md#several-windows-per-bucket). Only this class takes the lock: each state's fields are
 * read and written in the {@code ...Locked} methods, which it calls under it, and never once it is retired.
 */
abstract class LockedState extends KeyState {
    private boolean retired; // guarded by this

    @Override
    final synchronized Verdict decide(Bucket bucket, long cost, long now) {
        return retired ? null : decideLocked(bucket, cost, now);
    }

    @Override
    final synchronized boolean carry(Bucket bucket, Verdict verdict, long now) {
        if (!retired) {
            carryLocked(bucket, verdict, now);
        }
        return !retired;
    }

    @Override
    final synchronized boolean refund(Bucket bucket, long cost, long[] endsIn, long now) {
        if (!retired) {
            refundLocked(bucket, cost, endsIn, now);
        }
        return !retired;
    }

    @Override
    final synchronized boolean retire() {
        if (retired) {
            return false;
        }
        retired = true;
        return true;
    }

    /**
     * This state carried into a new one for {@code bucket}, of the same algorithm and other windows, and this one
     * retired; null, this one left as it is, when it cannot be carried (or was retired already).
     */
    final synchronized KeyState reshaped(Bucket bucket) {
        if (retired) {
            return null;
        }
        KeyState next = reshapedLocked(bucket);
        if (next != null) {
            retired = true;
        }
        return next;
    }

    /** The state {@link #reshaped} gives, read under the lock; null when none. */
    KeyState reshapedLocked(Bucket bucket) {
        return null;
    }

    @Override
    final synchronized boolean retireIfEnded(long now) {
        if (retired || !ended(now)) {
            return false;
        }
        retired = true;
        return true;
    }

    abstract Verdict decideLocked(Bucket bucket, long cost, long now);

    abstract void carryLocked(Bucket bucket, Verdict verdict, long now);

    abstract void refundLocked(Bucket bucket, long cost, long[] endsIn, long now);

    /** Whether every window of this state has ended, or is full again, at {@code now} (epoch milliseconds). */
    abstract boolean ended(long now);
}
