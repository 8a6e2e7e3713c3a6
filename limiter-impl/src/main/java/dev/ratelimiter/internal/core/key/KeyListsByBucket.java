package dev.ratelimiter.internal.core.key;

import java.util.Map;

/**
 * Every bucket's allow and deny lists in force ({@link KeyLists}), by bucket name: read at each decision, replaced
 * whole by a reload (docs/live-limits.md), so a decision sees one bucket's two lists from the same settings.
 *
 * <p>Safe for concurrent use. With the limiter switched off ({@code ratelimiter.enabled=false}) it holds no list
 * and ignores updates: the kill switch refuses nothing, a deny list included.
 */
public final class KeyListsByBucket {

    private final boolean enabled;
    private volatile Map<String, KeyLists> lists;

    /**
     * @param lists   each bucket's lists, where it has any
     * @param enabled {@code false} for the kill switch: no list, ever
     */
    public KeyListsByBucket(Map<String, KeyLists> lists, boolean enabled) {
        this.enabled = enabled;
        this.lists = enabled ? Map.copyOf(lists) : Map.of();
    }

    /** {@return the bucket's lists, {@link KeyLists#NONE} when it has none} */
    public KeyLists of(String bucket) {
        Map<String, KeyLists> current = lists;
        return current.isEmpty() ? KeyLists.NONE : current.getOrDefault(bucket, KeyLists.NONE);
    }

    /**
     * Puts these lists, and only these, in force from the next decision: a reload's.
     *
     * @param lists each bucket's lists, where it has any
     */
    public void update(Map<String, KeyLists> lists) {
        if (enabled) {
            this.lists = Map.copyOf(lists);
        }
    }
}
