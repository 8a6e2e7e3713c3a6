package dev.ratelimiter.internal.core.verdict;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.spi.StorePermit;

import java.time.Duration;
import java.util.Arrays;

/**
 * The concurrency rule (docs/guide.md#concurrency-limits, docs/stores.md#permits), in Java as the Valkey script
 * {@code permits.lua} and PostgreSQL's {@code permits-*.sql} have it: a key's permits are leases, each an id and a
 * deadline; a take first drops the leases that ended (deadline at or before now), then renews its own id if held, or
 * adds it if fewer than the limit are held. The in-memory store keeps one key's leases in {@link Leases}; every store's
 * answer to a take is read here.
 *
 * <p>A refusal's {@code Retry-After} is {@link #RETRY_AFTER}: a permit frees when a call in flight ends, which no one
 * can tell in advance (the leases' deadlines are renewed while the calls run), so the answer is the shortest wait
 * HTTP states, one second (RFC 9110, section 10.2.3), and a refused call costs the store nothing but its take.
 */
public final class Permits {

    /** The wait a concurrency bucket's refusal states, and the time to reset its headers report. */
    public static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    /** The numbers of a store's answer to a take: allowed, held after it, leases it found ended. */
    public static final int ANSWER_LENGTH = 3;


    private Permits() {
    }

    /**
     * The verdict of a store's answer to a take ({@link dev.ratelimiter.spi.RateLimitStore#take}).
     *
     * @param bucket the concurrency bucket
     * @param answer {@code [allowed 1 or 0, permits held after the take, leases found ended]}
     * @return ALLOWED or DENIED: limit the bucket's permits, remaining those not held, reset {@link #RETRY_AFTER}
     * @throws IllegalStateException if the answer is not three numbers
     */
    public static Verdict fromAnswer(Bucket bucket, long[] answer) {
        if (answer.length != ANSWER_LENGTH) {
            throw new IllegalStateException("the store answered " + answer.length + " numbers to a take; "
                    + ANSWER_LENGTH + " expected for bucket " + bucket.name());
        }
        return verdict(bucket, answer[0] == 1, answer[1]);
    }

    /** {@return the leases a store's answer found ended, not negative} */
    public static long expired(long[] answer) {
        return Math.max(0, answer[2]);
    }

    /**
     * A take's verdict.
     *
     * @param bucket  the concurrency bucket
     * @param allowed whether the permit was taken
     * @param held    the permits held after the take (clamped to 0..limit)
     * @return ALLOWED or DENIED, remaining the permits not held
     */
    public static Verdict verdict(Bucket bucket, boolean allowed, long held) {
        long remaining = bucket.limit() - Verdicts.clamp(held, bucket.limit());
        return new Verdict(Verdicts.outcome(allowed), bucket.limit(), remaining, RETRY_AFTER, java.util.List.of());
    }

    /** {@return an allowed verdict that took no permit: every permit free (the kill switch, a fail-open outage)} */
    public static Verdict untouched(Bucket bucket) {
        return verdict(bucket, true, 0);
    }

    /**
     * One key's leases, in memory: ids and deadlines in two arrays, the ended ones dropped at each take. Not
     * thread-safe: its owner changes it under the key's lock.
     */
    public static final class Leases {

        private long[] ids = new long[4];
        private long[] deadlines = new long[4];
        private int size;

        /**
         * Takes a permit, as every store does (see the class comment).
         *
         * @param id          the permit's id; {@link StorePermit#CHECK} only counts
         * @param limit       the bucket's permits per key
         * @param nowMillis   now, on the store's clock
         * @param leaseMillis the lease's length
         * @return the answer, as a store's ({@link #fromAnswer})
         */
        public long[] take(long id, long limit, long nowMillis, long leaseMillis) {
            long expired = dropEnded(nowMillis);
            int at = indexOf(id);
            boolean allowed;
            if (id != StorePermit.CHECK && at >= 0) {
                deadlines[at] = nowMillis + leaseMillis;
                allowed = true;
            } else if (size < limit) {
                allowed = true;
                if (id != StorePermit.CHECK) {
                    add(id, nowMillis + leaseMillis);
                }
            } else {
                allowed = false;
            }
            return new long[] {allowed ? 1 : 0, size, expired};
        }

        /**
         * Gives a permit back; nothing for an id not held.
         *
         * @return whether it was held
         */
        public boolean giveBack(long id) {
            int at = indexOf(id);
            if (at < 0) {
                return false;
            }
            size--;
            ids[at] = ids[size];
            deadlines[at] = deadlines[size];
            return true;
        }

        /**
         * Renews a permit's lease if it is held and its lease has not ended.
         *
         * @return whether it was held
         */
        public boolean renew(long id, long nowMillis, long leaseMillis) {
            int at = indexOf(id);
            if (at < 0 || deadlines[at] <= nowMillis) {
                return false;
            }
            deadlines[at] = nowMillis + leaseMillis;
            return true;
        }

        /**
         * Drops the leases ended by {@code nowMillis} (a sweep).
         *
         * @return whether the key holds no permit now
         */
        public boolean ended(long nowMillis) {
            dropEnded(nowMillis);
            return size == 0;
        }

        /** {@return the permits held, ended leases included until the next take} */
        public int size() {
            return size;
        }

        private long dropEnded(long nowMillis) {
            long dropped = 0;
            for (int i = size - 1; i >= 0; i--) {
                if (deadlines[i] <= nowMillis) {
                    size--;
                    ids[i] = ids[size];
                    deadlines[i] = deadlines[size];
                    dropped++;
                }
            }
            return dropped;
        }

        private int indexOf(long id) {
            for (int i = 0; i < size; i++) {
                if (ids[i] == id) {
                    return i;
                }
            }
            return -1;
        }

        private void add(long id, long deadline) {
            if (size == ids.length) {
                ids = Arrays.copyOf(ids, size * 2);
                deadlines = Arrays.copyOf(deadlines, size * 2);
            }
            ids[size] = id;
            deadlines[size] = deadline;
            size++;
        }
    }
}
