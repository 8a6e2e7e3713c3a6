package dev.ratelimiter.bench;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Section 5: the heap that live in-memory counters hold (keys included: 43-character hashed keys, as the decider
 * makes them), beside a ConcurrentHashMap of AtomicLongs holding the same keys, and what is left once their
 * windows have ended and a sweep has run. Measured in this JVM as used heap after full collections.
 */
final class MemorySection {

    private MemorySection() {
    }

    static Section run(Mode mode) throws InterruptedException {
        int count = mode.memoryCounters();
        Bucket bucket = Bucket.of("bench-memory", 1_000, Duration.ofMinutes(1));
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        // The smoke's figures are not read: a shorter pause after each of its eight or more collections.
        Duration settle = Duration.ofMillis(mode.smoke() ? 20 : 100);

        long empty = usedHeapAfterCollection(settle);
        MemoryRateLimiter limiter = new MemoryRateLimiter(clock, count);
        for (int i = 0; i < count; i++) {
            limiter.consume(bucket, LibraryPaths.hashedKey("user-" + i + "@example.com"));
        }
        long live = usedHeapAfterCollection(settle) - empty;
        clock.advance(bucket.window());
        long swept = limiter.sweep();
        long afterSweep = Math.max(0, usedHeapAfterCollection(settle) - empty);
        if (swept != count || limiter.liveCounters(bucket.name()) != 0) {
            throw new IllegalStateException("the sweep removed " + swept + " of " + count + " counters");
        }
        limiter = null;

        long before = usedHeapAfterCollection(settle);
        ConcurrentHashMap<String, AtomicLong> floor = new ConcurrentHashMap<>();
        for (int i = 0; i < count; i++) {
            floor.put(LibraryPaths.hashedKey("user-" + i + "@example.com"), new AtomicLong(1));
        }
        long floorBytes = usedHeapAfterCollection(settle) - before;
        if (floor.size() != count) {
            throw new IllegalStateException("the floor map lost keys");
        }

        List<Row> rows = new ArrayList<>();
        Figure liveFigure = new Figure("MemoryRateLimiter", live / (double) count, "bytes per counter",
                Map.of("heap_mb", live / 1e6));
        rows.add(Row.of(Report.number(count) + " live counters: heap per counter / `ConcurrentHashMap<String, "
                + "AtomicLong>` with the same keys", liveFigure, new Figure("ConcurrentHashMap + AtomicLong",
                floorBytes / (double) count, "bytes per counter", Map.of("heap_mb", floorBytes / 1e6)),
                Goal.none()));
        rows.add(Row.of("after the windows end and a sweep: heap still held / heap of the live counters",
                new Figure("after sweep", afterSweep / 1e6, "MB"), new Figure("live", live / 1e6, "MB"),
                Goal.none()));
        return new Section("Memory: heap of in-memory counters", "In the benchmark's JVM (-Xmx1g): used heap "
                + "after `System.gc()` (until two readings agree), before and after " + Report.number(count)
                + " keys were counted once each in one bucket, then after the clock passed the window's end and "
                + "`sweep()` removed every counter.", rows);
    }

    /** @param settle the pause after each collection before the heap is read */
    private static long usedHeapAfterCollection(Duration settle) throws InterruptedException {
        long previous = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            System.gc();
            Thread.sleep(settle.toMillis());
            long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            if (Math.abs(previous - used) < 64 * 1024) {
                return used;
            }
            previous = used;
        }
        return previous;
    }
}
