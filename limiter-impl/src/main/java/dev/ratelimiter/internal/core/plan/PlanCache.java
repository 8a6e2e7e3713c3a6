package dev.ratelimiter.internal.core.plan;

import dev.ratelimiter.internal.core.key.KeyNamespace;

import java.time.InstantSource;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One planner's resolver answers by key, each kept for {@code ratelimiter.plans.cache-ttl} and at most
 * {@code ratelimiter.plans.cache-max-entries} of them (docs/plans.md#the-plan-cache).
 *
 * <p>Every answer lives as long as every other, so the order answers were kept in is the order they expire in: a
 * queue in that order drops the expired ones at each new answer, and the oldest first when the cache is full, with no
 * scan and no lock. A look-up is one map read and allocates nothing.
 *
 * @param <V> what is kept per key
 */
final class PlanCache<V> {

    private final long ttlMillis;
    private final int maxEntries;
    private final InstantSource clock;
    // One map per namespace: the same text keyed by a principal and by an application is two keys
    @SuppressWarnings("unchecked")
    private final Map<String, Entry<V>>[] byNamespace = new Map[KeyNamespace.values().length];
    private final Queue<Entry<V>> order = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();

    /**
     * @param ttlMillis  how long an answer is kept, milliseconds, at least 1
     * @param maxEntries answers kept at most, at least 1
     * @param clock      the library's clock
     */
    PlanCache(long ttlMillis, int maxEntries, InstantSource clock) {
        this.ttlMillis = ttlMillis;
        this.maxEntries = maxEntries;
        this.clock = clock;
        for (int i = 0; i < byNamespace.length; i++) {
            byNamespace[i] = new ConcurrentHashMap<>();
        }
    }

    /** {@return the answer kept for the key, or {@code null} if none is, or it expired} */
    V get(KeyNamespace namespace, String key) {
        Entry<V> entry = byNamespace[namespace.ordinal()].get(key);
        return entry != null && clock.millis() < entry.expiresAt ? entry.value : null;
    }

    /** Keeps an answer for the key, replacing any, and drops the expired answers and, when full, the oldest. */
    void put(KeyNamespace namespace, String key, V value) {
        long now = clock.millis();
        Entry<V> entry = new Entry<>(namespace, key, value, now + ttlMillis);
        Entry<V> replaced = byNamespace[namespace.ordinal()].put(key, entry);
        if (replaced == null) {
            size.incrementAndGet();
        }
        order.add(entry);
        for (Entry<V> oldest = order.peek(); oldest != null
                && (oldest.expiresAt <= now || size.get() > maxEntries); oldest = order.peek()) {
            if (order.remove(oldest) && byNamespace[oldest.namespace.ordinal()].remove(oldest.key, oldest)) {
                size.decrementAndGet();
            }
        }
    }

    /** {@return how many answers are kept, expired ones not yet dropped included} */
    int size() {
        return size.get();
    }

    /** An answer; equal only to itself, so a replaced answer's place in the queue no longer removes the key. */
    private static final class Entry<V> {
        final KeyNamespace namespace;
        final String key;
        final V value;
        final long expiresAt;

        Entry(KeyNamespace namespace, String key, V value, long expiresAt) {
            this.namespace = namespace;
            this.key = key;
            this.value = value;
            this.expiresAt = expiresAt;
        }
    }
}
