package dev.ratelimiter.internal.core.monitor;

import dev.ratelimiter.Bucket;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts, per bucket and in total, the attempts that an outage policy answered. Read by the readiness check
 * ({@code fallbacks}) and by the metrics adapters.
 */
public final class OutageStatistics implements OutageListener {

    private final Map<String, LongAdder> fallbacks = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> failOpens = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> failCloseds = new ConcurrentHashMap<>();

    @Override
    public void fallback(Bucket bucket) {
        adder(fallbacks, bucket).increment();
    }

    @Override
    public void failOpen(Bucket bucket) {
        adder(failOpens, bucket).increment();
    }

    @Override
    public void failClosed(Bucket bucket) {
        adder(failCloseds, bucket).increment();
    }

    /** Attempts of that bucket decided by the fallback limiter since start. */
    public long fallbacks(String bucketName) {
        return read(fallbacks, bucketName);
    }

    /** Attempts of that bucket allowed uncounted since start. */
    public long failOpens(String bucketName) {
        return read(failOpens, bucketName);
    }

    /** Attempts of that bucket refused by a fail-closed outage since start. */
    public long failCloseds(String bucketName) {
        return read(failCloseds, bucketName);
    }

    /** Attempts decided by the fallback limiter since start, all buckets. */
    public long totalFallbacks() {
        return fallbacks.values().stream().mapToLong(LongAdder::sum).sum();
    }

    private static LongAdder adder(Map<String, LongAdder> map, Bucket bucket) {
        LongAdder adder = map.get(bucket.name());
        return adder != null ? adder : map.computeIfAbsent(bucket.name(), name -> new LongAdder());
    }

    private static long read(Map<String, LongAdder> map, String bucketName) {
        LongAdder adder = map.get(bucketName);
        return adder == null ? 0 : adder.sum();
    }
}
