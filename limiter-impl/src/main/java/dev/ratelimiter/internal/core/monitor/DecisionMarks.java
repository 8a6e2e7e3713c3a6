package dev.ratelimiter.internal.core.monitor;

import dev.ratelimiter.Bucket;

import java.util.ArrayList;
import java.util.List;

/**
 * What the trace port tells beside a verdict (docs/operations.md#decisions-on-the-trace): which buckets the fallback
 * per process decided on this thread during one decision ({@code ratelimit.fallback}), told as an outage listener by
 * the outage policy on the deciding thread, and which a block refused ({@code ratelimit.outcome} {@code blocked},
 * docs/guide.md#blocks-after-a-refusal), told by the block's limiter. It records only on a thread the decider armed,
 * so without tracing it keeps nothing and a mark costs one look-up.
 *
 * <p>Safe for concurrent use: each thread has its own marks.
 */
public final class DecisionMarks implements OutageListener {

    // A decision names a few buckets; the cap bounds what untraced calls on an armed thread (quota reads) can add
    // before its next decision arms it again.
    private static final int MAX_MARKS = 16;

    private final ThreadLocal<Marks> marks = new ThreadLocal<>();

    /** Starts a decision on this thread: forgets the marks of the one before, and records from now on. */
    public void arm() {
        Marks current = marks.get();
        if (current == null) {
            marks.set(new Marks());
        } else {
            current.fallback.clear();
            current.blocked.clear();
        }
    }

    /** {@return whether the fallback decided the bucket on this thread since {@link #arm()}} */
    public boolean decided(Bucket bucket) {
        Marks current = marks.get();
        return current != null && current.fallback.contains(bucket.name());
    }

    /** {@return whether a block refused the bucket's key on this thread since {@link #arm()}} */
    public boolean blocked(Bucket bucket) {
        Marks current = marks.get();
        return current != null && current.blocked.contains(bucket.name());
    }

    @Override
    public void fallback(Bucket bucket) {
        Marks current = marks.get();
        if (current != null) {
            add(current.fallback, bucket);
        }
    }

    /** Tells that a block refused the bucket's key on this thread; kept only on an armed thread. */
    public void block(Bucket bucket) {
        Marks current = marks.get();
        if (current != null) {
            add(current.blocked, bucket);
        }
    }

    private static void add(List<String> buckets, Bucket bucket) {
        if (buckets.size() < MAX_MARKS) {
            buckets.add(bucket.name());
        }
    }

    private static final class Marks {
        final List<String> fallback = new ArrayList<>(2);
        final List<String> blocked = new ArrayList<>(2);
    }
}
