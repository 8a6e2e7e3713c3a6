package dev.ratelimiter.internal.cdi.call;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The verdicts given during one HTTP request, in order, from which the response filter writes the RateLimit
 * headers. Held by the request's {@link RequestIdentity}: one request-scoped bean per request rather than two, since
 * creating one costs more than the rest of the filter (docs/architecture.md#the-path-of-a-request).
 */
public final class AppliedLimits {

    /** One bucket's verdict. */
    public record Applied(Bucket bucket, Verdict verdict) {
    }

    private final List<Applied> applied = new ArrayList<>(2);
    private List<Consumer<OptionalLong>> awaitingCost; // null until a settled call waits for the response header
    private List<Runnable> atEnd; // null until the global filter takes a permit

    AppliedLimits() {
    }

    /** Records a verdict; a later verdict of the same bucket replaces the earlier one. */
    public void record(Bucket bucket, Verdict verdict) {
        applied.removeIf(entry -> entry.bucket().name().equals(bucket.name()));
        applied.add(new Applied(bucket, verdict));
    }

    /**
     * Replaces a bucket's verdict in its place, keeping the order the buckets were decided in: a call whose count was
     * given back (docs/guide.md#counting-failures-only); a bucket not recorded yet is added.
     */
    public void replace(Bucket bucket, Verdict verdict) {
        for (int i = 0; i < applied.size(); i++) {
            if (applied.get(i).bucket().name().equals(bucket.name())) {
                applied.set(i, new Applied(bucket, verdict));
                return;
            }
        }
        applied.add(new Applied(bucket, verdict));
    }

    /**
     * Runs {@code action} when the request ends, if nothing ran it before: the global filter's permit of a concurrency
     * bucket, given back by the response filter, or at the request's end when no response was filtered (an error
     * no exception mapper answered), so no permit outlives its request (docs/guide.md#concurrency-limits).
     */
    public synchronized void atEnd(Runnable action) {
        if (atEnd == null) {
            atEnd = new ArrayList<>(1);
        }
        atEnd.add(action);
    }

    /** The request ended: runs what {@link #atEnd} left, once; never throws. */
    void end() {
        List<Runnable> actions;
        synchronized (this) {
            actions = atEnd;
            atEnd = null;
        }
        if (actions != null) {
            for (Runnable action : actions) {
                try {
                    action.run();
                } catch (RuntimeException e) {
                    // the request has ended: a permit not given back ends with its lease
                }
            }
        }
    }

    /**
     * Leaves a settled call's settlement to the response: {@code settle} is given the cost the response header
     * {@code X-RateLimit-Cost} names, or none (docs/guide.md#costs-settled-after-the-call).
     */
    public synchronized void awaitCost(Consumer<OptionalLong> settle) {
        if (awaitingCost == null) {
            awaitingCost = new ArrayList<>(1);
        }
        awaitingCost.add(settle);
    }

    /** {@link #replace} for any bucket, for the interceptor's counts given back. */
    public BiConsumer<Bucket, Verdict> replacer() {
        return this::replace;
    }

    /**
     * {@link Handle#recorder(Bucket)} for any bucket: the interceptor records each bucket of a method as it decides.
     */
    public BiConsumer<Bucket, Verdict> recorder() {
        return this::record;
    }

    /**
     * What reads and records this request's verdicts later, from a thread where the request context may not be
     * active (the response filter of a {@code CompletionStage} resource method that completed elsewhere, a filter
     * that handed its store call to a worker thread).
     */
    public Handle handle() {
        return new Handle(this);
    }

    /** This request's verdicts, outside the request context: {@link #get()} reads them, {@link #recorder} adds one. */
    public static final class Handle implements Supplier<List<Applied>> {
        private final AppliedLimits limits;

        private Handle(AppliedLimits limits) {
            this.limits = limits;
        }

        /** The verdicts so far, oldest first. */
        @Override
        public List<Applied> get() {
            return limits.all();
        }

        /** What replaces {@code bucket}'s verdict in its place ({@link AppliedLimits#replace}). */
        public Consumer<Verdict> replacer(Bucket bucket) {
            return verdict -> limits.replace(bucket, verdict);
        }

        /** The settlements waiting for the response's cost header, taken once: later calls get none. */
        public List<Consumer<OptionalLong>> takeAwaitingCost() {
            synchronized (limits) { // a settled call on a worker thread sharing the request's context may add one
                List<Consumer<OptionalLong>> awaiting = limits.awaitingCost;
                limits.awaitingCost = null;
                return awaiting == null ? List.of() : awaiting;
            }
        }

        /** Runs {@code action} when the request ends, if nothing ran it before ({@link AppliedLimits#atEnd}). */
        public void atEnd(Runnable action) {
            limits.atEnd(action);
        }

        /** What records a verdict of {@code bucket}; a later verdict of the same bucket replaces the earlier one. */
        public Consumer<Verdict> recorder(Bucket bucket) {
            return verdict -> limits.record(bucket, verdict);
        }
    }

    /** The verdicts so far, oldest first. */
    public List<Applied> all() {
        return Collections.unmodifiableList(applied);
    }
}
