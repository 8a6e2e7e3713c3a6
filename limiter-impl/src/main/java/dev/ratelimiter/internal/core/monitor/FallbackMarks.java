package dev.ratelimiter.internal.core.monitor;

import dev.ratelimiter.Bucket;

import java.util.ArrayList;
import java.util.List;

/**
 * Which buckets the fallback per process decided on this thread during one decision, for the trace port's
 * {@code ratelimit.fallback} (docs/operations.md#decisions-on-the-trace): an outage listener, told by the outage policy
 * on the deciding thread. It records only on a thread the decider armed, so without tracing it keeps nothing and an
 * outage costs it one look-up per fallback decision.
 *
 * <p>Safe for concurrent use: each thread has its own marks.
 */
public final class FallbackMarks implements OutageListener {

    // A decision names a few buckets; the cap bounds what untraced calls on an armed thread (quota reads) can add
    // before its next decision arms it again.
    private static final int MAX_MARKS = 16;

    private final ThreadLocal<List<String>> marks = new ThreadLocal<>();

    /** Starts a decision on this thread: forgets the marks of the one before, and records from now on. */
    public void arm() {
        List<String> buckets = marks.get();
        if (buckets == null) {
            marks.set(new ArrayList<>(2));
        } else {
            buckets.clear();
        }
    }

    /** {@return whether the fallback decided the bucket on this thread since {@link #arm()}} */
    public boolean decided(Bucket bucket) {
        List<String> buckets = marks.get();
        return buckets != null && buckets.contains(bucket.name());
    }

    @Override
    public void fallback(Bucket bucket) {
        List<String> buckets = marks.get();
        if (buckets != null && buckets.size() < MAX_MARKS) {
            buckets.add(bucket.name());
        }
    }
}
