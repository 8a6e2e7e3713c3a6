package dev.ratelimiter.internal.cdi.interceptor;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.decision.RawKey;
import dev.ratelimiter.internal.core.key.KeyNamespace;
import dev.ratelimiter.internal.core.key.KeyNormalizer;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.List;

/**
 * The (bucket, key) pairs whose intercepted call is running on each thread, so that a call nested inside one of the
 * same bucket and key counts once (docs/guide.md#several-limits-on-one-method): ArC (Quarkus) intercepts a bean's
 * call of its own method where Weld does not, and a method calling another of the same bucket would otherwise spend
 * two attempts on one request. Calls from outside, one after another, still count each.
 *
 * <p>Per thread, a list of (bucket, namespace, normalized key) triples, grown on entry and cut back on exit (calls
 * nest, so they leave in the reverse order). The list stays with the thread, so a call on an already normal key
 * allocates nothing here; it is empty whenever no limited call runs on the thread, so between calls the thread keeps
 * only an empty JDK list, which pins no class loader after an undeployment.
 */
@ApplicationScoped
public class NestedCalls {

    private final ThreadLocal<List<Object>> running = ThreadLocal.withInitial(ArrayList::new);

    /** {@return what {@link #exit(int)} takes when the call about to {@link #enter} returns} */
    int mark() {
        return running.get().size();
    }

    /**
     * Marks the call's (bucket, key) pairs as running on this thread, each unless an outer call already runs it.
     *
     * @param limits each limit, its bucket first
     * @param keys   each limit's key, at the same index; none {@code null}
     * @return a bit per index (the first 64) whose pair an outer call runs, and counts: 0 when none does
     */
    long enter(List<RateLimitedMethodCache.BoundLimit> limits, RawKey[] keys) {
        List<Object> pairs = running.get();
        int outer = pairs.size();
        long nested = 0;
        for (int i = 0; i < keys.length; i++) {
            Bucket bucket = limits.get(i).bucket();
            KeyNamespace namespace = keys[i].namespace();
            String key = KeyNormalizer.normalize(keys[i].raw(), keys[i].normalization());
            if (i < Long.SIZE && runs(pairs, outer, bucket, namespace, key)) {
                nested |= 1L << i;
            } else {
                pairs.add(bucket);
                pairs.add(namespace);
                pairs.add(key);
            }
        }
        return nested;
    }

    /** Ends the call that {@link #mark()} gave {@code mark} before it entered: its pairs are no longer running. */
    void exit(int mark) {
        List<Object> pairs = running.get();
        for (int i = pairs.size() - 1; i >= mark; i--) {
            pairs.remove(i);
        }
    }

    /** Whether an outer call (the first {@code outer} entries) runs the pair. */
    private static boolean runs(List<Object> pairs, int outer, Bucket bucket, KeyNamespace namespace, String key) {
        for (int i = 0; i < outer; i += 3) {
            if (pairs.get(i).equals(bucket) && pairs.get(i + 1) == namespace && pairs.get(i + 2).equals(key)) {
                return true;
            }
        }
        return false;
    }
}
