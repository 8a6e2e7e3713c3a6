package dev.ratelimiter.internal.core.memory;

import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.verdict.Permits;
import dev.ratelimiter.spi.StorePermit;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The permits of concurrency buckets in this process (docs/guide.md#concurrency-limits): per bucket name, each key's
 * {@link Permits.Leases}, changed only inside the map's {@code compute} for that key, so a take, a give-back, a
 * renewal and the sweep of one key never interleave. Exact: at most the limit per key, whatever the threads. A bucket
 * holds at most {@code maxKeys} keys with permits; a new key beyond them is answered {@code UNAVAILABLE} (its
 * bucket's outage policy decides), as a counter beyond the cap is.
 */
final class MemoryPermits {

    private final InstantSource clock;
    private final int maxKeys;
    private final Map<String, Map<String, Permits.Leases>> buckets = new ConcurrentHashMap<>();

    MemoryPermits(InstantSource clock, int maxKeys) {
        this.clock = clock;
        this.maxKeys = maxKeys;
    }

    Verdict take(StorePermit permit) {
        Map<String, Permits.Leases> keys = buckets.computeIfAbsent(permit.bucket().name(),
                name -> new ConcurrentHashMap<>());
        long now = clock.millis();
        if (keys.size() >= maxKeys && !keys.containsKey(permit.key())) {
            sweep(keys, now);
            if (keys.size() >= maxKeys) {
                return Verdict.unavailable(permit.bucket().limit(), Duration.ZERO);
            }
        }
        long[][] answer = new long[1][];
        keys.compute(permit.key(), (key, leases) -> {
            Permits.Leases held = leases != null ? leases : new Permits.Leases();
            answer[0] = held.take(permit.id(), permit.bucket().limit(), now, permit.leaseMillis());
            return held.size() == 0 ? null : held;
        });
        return Permits.fromAnswer(permit.bucket(), answer[0]);
    }

    void giveBack(List<StorePermit> permits) {
        for (StorePermit permit : permits) {
            Map<String, Permits.Leases> keys = buckets.get(permit.bucket().name());
            if (keys != null) {
                keys.computeIfPresent(permit.key(), (key, leases) -> {
                    leases.giveBack(permit.id());
                    return leases.size() == 0 ? null : leases;
                });
            }
        }
    }

    boolean[] renew(List<StorePermit> permits) {
        long now = clock.millis();
        boolean[] held = new boolean[permits.size()];
        for (int i = 0; i < held.length; i++) {
            StorePermit permit = permits.get(i);
            Map<String, Permits.Leases> keys = buckets.get(permit.bucket().name());
            if (keys != null) {
                int at = i;
                keys.computeIfPresent(permit.key(), (key, leases) -> {
                    held[at] = leases.renew(permit.id(), now, permit.leaseMillis());
                    return leases.size() == 0 ? null : leases;
                });
            }
        }
        return held;
    }

    /** Drops a key's permits, as a reset of its counters does. */
    void reset(String bucketName, String key) {
        Map<String, Permits.Leases> keys = buckets.get(bucketName);
        if (keys != null) {
            keys.remove(key);
        }
    }

    /** Drops ended leases and the keys left without one; returns how many keys left. */
    long sweep() {
        long now = clock.millis();
        long swept = 0;
        for (Map<String, Permits.Leases> keys : buckets.values()) {
            swept += sweep(keys, now);
        }
        return swept;
    }

    private static long sweep(Map<String, Permits.Leases> keys, long now) {
        long swept = 0;
        for (String key : keys.keySet()) {
            boolean[] removed = new boolean[1];
            keys.computeIfPresent(key, (k, leases) -> {
                removed[0] = leases.ended(now);
                return removed[0] ? null : leases;
            });
            swept += removed[0] ? 1 : 0;
        }
        return swept;
    }

    /** The permits held for a key, ended leases not yet dropped included; 0 for none. */
    int held(String bucketName, String key) {
        Map<String, Permits.Leases> keys = buckets.get(bucketName);
        Permits.Leases leases = keys == null ? null : keys.get(key);
        return leases == null ? 0 : leases.size();
    }
}
