package dev.ratelimiter.core;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.Sweepable;
import dev.ratelimiter.Verdict;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Fixed-window counters in this process's memory: the embedded default, and the fallback of a shared store.
 *
 * <p>Exact under concurrency without locks: each key has one cell whose current window is swapped by
 * compare-and-set when a window opens (the only allocation), and whose count is incremented in place.
 * A sweeper retires an ended window by swapping in a tombstone before it removes the cell, so an attempt can
 * never be counted in a cell that has left the map.
 *
 * <p>Each bucket holds at most {@code maxKeysPerBucket} live counters. A new key beyond the cap is answered
 * {@link Verdict.Outcome#UNAVAILABLE} (the bucket's outage policy decides), counted in
 * {@link #refusedAtCap(String)} and warned about once per bucket; live counters are never evicted, since
 * evicting one would hand its key a fresh window. At the cap, ended windows of that bucket are swept at most
 * once per second before a key is refused.
 *
 * <p>Time comes from the {@link InstantSource} in milliseconds, made {@linkplain ForwardOnlyClock forward-only}: a
 * source stepped back (a wall clock set back an hour) does not keep a window shut for that hour; every window
 * ends no later than its length of elapsed time after it opened.
 */
public final class MemoryRateLimiter implements RateLimiter, Sweepable {

    private static final System.Logger LOG = System.getLogger(MemoryRateLimiter.class.getName());
    private static final long CAP_SWEEP_SPACING_MILLIS = 1_000;

    private final InstantSource clock;
    private final int maxKeysPerBucket;
    private final Map<String, Counters> buckets = new ConcurrentHashMap<>();

    /**
     * @param clock            the time source; read through {@link ForwardOnlyClock#of}
     * @param maxKeysPerBucket live counters allowed per bucket, at least 1
     * @throws IllegalArgumentException if {@code maxKeysPerBucket} is below 1
     */
    public MemoryRateLimiter(InstantSource clock, int maxKeysPerBucket) {
        this.clock = ForwardOnlyClock.of(clock);
        if (maxKeysPerBucket < 1) {
            throw new IllegalArgumentException("maxKeysPerBucket must be at least 1, was " + maxKeysPerBucket);
        }
        this.maxKeysPerBucket = maxKeysPerBucket;
    }

    @Override
    public Verdict consume(Bucket bucket, String key) {
        Counters counters = counters(bucket);
        long now = clock.millis();
        long windowMillis = bucket.window().toMillis();
        while (true) {
            Cell cell = counters.cells.get(key);
            if (cell == null) {
                if (!counters.reserve(now)) {
                    return counters.refuse(bucket);
                }
                Cell fresh = new Cell(new Window(now + windowMillis));
                cell = counters.cells.putIfAbsent(key, fresh);
                if (cell == null) {
                    return firstAttempt(bucket);
                }
                counters.release();
            }
            Window window = cell.window;
            if (window == Window.RETIRED) {
                continue; // swept or reset a moment ago: the next lookup finds a new cell or none
            }
            if (now >= window.endsAt) {
                if (cell.replace(window, new Window(now + windowMillis))) {
                    return firstAttempt(bucket);
                }
                continue;
            }
            long count = window.increment();
            Duration resetAfter = Duration.ofMillis(window.endsAt - now);
            return count <= bucket.limit()
                    ? Verdict.allowed(bucket.limit(), bucket.limit() - count, resetAfter)
                    : Verdict.denied(bucket.limit(), resetAfter);
        }
    }

    @Override
    public void reset(Bucket bucket, String key) {
        Counters counters = buckets.get(bucket.name());
        if (counters == null) {
            return;
        }
        Cell cell = counters.cells.get(key);
        while (cell != null) {
            Window window = cell.window;
            if (window == Window.RETIRED) {
                return;
            }
            if (cell.replace(window, Window.RETIRED)) {
                counters.remove(key, cell);
                return;
            }
        }
    }

    @Override
    public long sweep() {
        long now = clock.millis();
        long swept = 0;
        for (Counters counters : buckets.values()) {
            swept += counters.sweep(now);
        }
        return swept;
    }

    /** Live counters of a bucket (including ended windows not yet swept); 0 for a bucket never used. */
    public int liveCounters(String bucketName) {
        Counters counters = buckets.get(bucketName);
        return counters == null ? 0 : counters.live.get();
    }

    /** How many attempts of new keys were refused because the bucket was at its cap, since start. */
    public long refusedAtCap(String bucketName) {
        Counters counters = buckets.get(bucketName);
        return counters == null ? 0 : counters.refused.sum();
    }

    private Counters counters(Bucket bucket) {
        Counters counters = buckets.get(bucket.name());
        return counters != null ? counters : buckets.computeIfAbsent(bucket.name(), name -> new Counters(name));
    }

    private static Verdict firstAttempt(Bucket bucket) {
        return Verdict.allowed(bucket.limit(), bucket.limit() - 1, bucket.window());
    }

    /** The counters of one bucket, with its cap. */
    private final class Counters {
        final String bucketName;
        final Map<String, Cell> cells = new ConcurrentHashMap<>();
        final AtomicInteger live = new AtomicInteger();
        final LongAdder refused = new LongAdder();
        final AtomicBoolean warned = new AtomicBoolean();
        final AtomicLong nextCapSweep = new AtomicLong(Long.MIN_VALUE);

        Counters(String bucketName) {
            this.bucketName = bucketName;
        }

        /** Takes a slot for a new key; at the cap, first sweeps ended windows (at most once per second). */
        boolean reserve(long now) {
            if (tryReserve()) {
                return true;
            }
            long due = nextCapSweep.get();
            if (now >= due && nextCapSweep.compareAndSet(due, now + CAP_SWEEP_SPACING_MILLIS)) {
                sweep(now);
                return tryReserve();
            }
            return false;
        }

        private boolean tryReserve() {
            while (true) {
                int current = live.get();
                if (current >= maxKeysPerBucket) {
                    return false;
                }
                if (live.compareAndSet(current, current + 1)) {
                    return true;
                }
            }
        }

        void release() {
            live.decrementAndGet();
        }

        void remove(String key, Cell cell) {
            cells.remove(key, cell);
            release();
        }

        Verdict refuse(Bucket bucket) {
            refused.increment();
            if (warned.compareAndSet(false, true)) {
                LOG.log(System.Logger.Level.WARNING, "Bucket ''{0}'' holds {1} live counters, the cap set by "
                        + "ratelimiter.memory.max-keys: new keys get the bucket''s outage policy ({2}) until "
                        + "windows end. Warned once.", bucketName, String.valueOf(maxKeysPerBucket), bucket.onOutage());
            }
            return Verdict.unavailable(bucket.limit(), Duration.ZERO);
        }

        long sweep(long now) {
            long swept = 0;
            for (Map.Entry<String, Cell> entry : cells.entrySet()) {
                Cell cell = entry.getValue();
                Window window = cell.window;
                if (window != Window.RETIRED && now >= window.endsAt && cell.replace(window, Window.RETIRED)) {
                    remove(entry.getKey(), cell);
                    swept++;
                }
            }
            return swept;
        }
    }

    /** One key's counter: its current window, replaced when a new window opens or the counter is retired. */
    private static final class Cell {
        private static final VarHandle WINDOW;

        static {
            try {
                WINDOW = MethodHandles.lookup().findVarHandle(Cell.class, "window", Window.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        volatile Window window;

        Cell(Window window) {
            this.window = window;
        }

        boolean replace(Window expected, Window next) {
            return WINDOW.compareAndSet(this, expected, next);
        }
    }

    /** One window: when it ends (epoch milliseconds) and how many attempts it has counted. */
    private static final class Window {
        static final Window RETIRED = new Window(Long.MIN_VALUE);
        private static final VarHandle COUNT;

        static {
            try {
                COUNT = MethodHandles.lookup().findVarHandle(Window.class, "count", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final long endsAt;
        @SuppressWarnings("unused") // updated through COUNT
        private volatile long count = 1;

        Window(long endsAt) {
            this.endsAt = endsAt;
        }

        long increment() {
            return (long) COUNT.getAndAdd(this, 1L) + 1;
        }
    }
}
