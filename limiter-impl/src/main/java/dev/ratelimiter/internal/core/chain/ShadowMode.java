package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.spi.Sweepable;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import dev.ratelimiter.internal.core.time.ForwardOnlyClock;

import java.time.InstantSource;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The buckets in shadow mode ({@code ratelimiter.buckets.<name>.mode=shadow}, docs/guide.md#shadow-mode): their
 * decisions are made and counted by the store as any other, but a refusal lets the call go on. What would have been
 * refused is reported to the metrics ({@code outcome="shadow_denied"} or {@code "shadow_unavailable"}) and, for a
 * denial, logged at INFO once per (bucket, key) and window, with the hashed key only.
 *
 * <p>To log once per window, this remembers when the window of each (bucket, hashed key) it logged ends: at most
 * {@code maxKeysPerBucket} keys per bucket ({@code ratelimiter.memory.max-keys}); past it the keys of new denials
 * are not logged (warned about once per bucket) until {@link #sweep()} removes ended windows. Nothing is kept for a
 * bucket in enforce mode nor for an allowed call.
 */
public final class ShadowMode implements Sweepable {

    private static final System.Logger LOG = System.getLogger(ShadowMode.class.getName());

    private volatile Set<String> buckets;
    private final InstantSource clock;
    private final int maxKeysPerBucket;
    private final RateLimiterMetrics metrics;
    private final Map<String, Logged> logged = new ConcurrentHashMap<>();

    /**
     * @param buckets          the names of the buckets in shadow mode ({@link LimiterSettings#shadowBuckets()})
     * @param clock            times the windows of the log; read through {@link ForwardOnlyClock#of}
     * @param maxKeysPerBucket keys remembered per bucket for the log, at least 1
     * @param metrics          told of each refusal let through
     * @throws IllegalArgumentException if {@code maxKeysPerBucket} is below 1
     */
    public ShadowMode(Set<String> buckets, InstantSource clock, int maxKeysPerBucket, RateLimiterMetrics metrics) {
        this.buckets = Set.copyOf(buckets);
        this.clock = ForwardOnlyClock.of(clock);
        if (maxKeysPerBucket < 1) {
            throw new IllegalArgumentException("maxKeysPerBucket must be at least 1, was " + maxKeysPerBucket);
        }
        this.maxKeysPerBucket = maxKeysPerBucket;
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    /** {@return whether the bucket is in shadow mode} */
    /**
     * Puts these buckets, and only these, in shadow mode from the next decision: a reload's (docs/live-limits.md).
     *
     * @param buckets the names of the buckets in shadow mode
     */
    public void buckets(Set<String> buckets) {
        this.buckets = Set.copyOf(buckets);
    }

    public boolean covers(Bucket bucket) {
        return buckets.contains(bucket.name());
    }

    /**
     * The verdict to act on for a refusal of a bucket in shadow mode: the call goes on.
     *
     * @param bucket      a bucket this covers
     * @param hashedKey   the key as counted (normalized and hashed), the only form logged
     * @param wouldRefuse the chain's verdict, {@link Verdict.Outcome#DENIED} or {@link Verdict.Outcome#UNAVAILABLE}
     * @return {@link Verdict.Outcome#ALLOWED} with {@code remaining} 0 and the refusal's {@code resetAfter}, so the
     *         RateLimit headers still say what enforcing the bucket would do
     */
    public Verdict letThrough(Bucket bucket, String hashedKey, Verdict wouldRefuse) {
        metrics.shadowDecision(bucket, wouldRefuse.outcome());
        if (wouldRefuse.outcome() == Verdict.Outcome.DENIED && firstInWindow(bucket, hashedKey, wouldRefuse)) {
            Limit refusing = refusingLimit(bucket, wouldRefuse);
            LOG.log(System.Logger.Level.INFO, "Shadow mode: bucket ''{0}'' would refuse key {1} (limit {2} per "
                    + "{3}; the window ends in {4} s); the call goes on. Logged once per key and window.",
                    bucket.name(), hashedKey, String.valueOf(refusing.limit()),
                    refusing.isCalendar() ? refusing.windowName() + " (" + bucket.zoneName() + ")"
                            : refusing.window().toSeconds() + " s", String.valueOf(wouldRefuse.retryAfterSeconds()));
        }
        return Verdict.allowed(wouldRefuse.limit(), 0, wouldRefuse.resetAfter());
    }

    /**
     * The window that refused: of a bucket of several windows, the one whose state the verdict's top-level values
     * give ({@link dev.ratelimiter.internal.core.verdict.Verdicts}: for a refusal, the refusing window that ends
     * last), so the log names the limit that was hit rather than the bucket's first.
     */
    private static Limit refusingLimit(Bucket bucket, Verdict refusal) {
        for (Verdict.Window window : refusal.windows()) {
            if (window.limit().limit() == refusal.limit() && window.resetAfter().equals(refusal.resetAfter())) {
                return window.limit();
            }
        }
        return bucket.limits().get(0);
    }

    /** Removes the remembered windows that have ended; never throws. */
    @Override
    public long sweep() {
        long now = clock.millis();
        long removed = 0;
        for (Logged keys : logged.values()) {
            removed += keys.sweep(now);
        }
        return removed;
    }

    /** Keys remembered for a bucket now, ended windows not yet swept included. */
    int remembered(Bucket bucket) {
        Logged keys = logged.get(bucket.name());
        return keys == null ? 0 : keys.size.get();
    }

    private boolean firstInWindow(Bucket bucket, String hashedKey, Verdict denial) {
        Logged keys = logged.get(bucket.name());
        if (keys == null) {
            keys = logged.computeIfAbsent(bucket.name(), name -> new Logged());
        }
        long now = clock.millis();
        return keys.first(bucket, hashedKey, now, now + denial.resetAfter().toMillis());
    }

    /** One bucket's logged keys: when each one's window ends (epoch milliseconds), and how many are kept. */
    private final class Logged {
        final Map<String, Long> windowEnds = new ConcurrentHashMap<>();
        final AtomicInteger size = new AtomicInteger();
        final AtomicBoolean warned = new AtomicBoolean();

        /** Whether this is the key's first denial logged in a window ending at {@code endsAt}; remembers it. */
        boolean first(Bucket bucket, String key, long now, long endsAt) {
            Long previous = windowEnds.get(key);
            if (previous != null) {
                return now >= previous && windowEnds.replace(key, previous, endsAt);
            }
            if (size.incrementAndGet() > maxKeysPerBucket) {
                size.decrementAndGet();
                if (warned.compareAndSet(false, true)) {
                    LOG.log(System.Logger.Level.WARNING, "Shadow mode: bucket ''{0}'' has logged {1} keys in "
                            + "windows not yet ended, the cap set by ratelimiter.memory.max-keys: the would-be "
                            + "refusals of further keys are counted but not logged until windows end. Warned once.",
                            bucket.name(), String.valueOf(maxKeysPerBucket));
                }
                return false;
            }
            if (windowEnds.putIfAbsent(key, endsAt) != null) {
                size.decrementAndGet(); // another thread logged this key meanwhile
                return false;
            }
            return true;
        }

        long sweep(long now) {
            long removed = 0;
            for (Map.Entry<String, Long> entry : windowEnds.entrySet()) {
                if (now >= entry.getValue() && windowEnds.remove(entry.getKey(), entry.getValue())) {
                    size.decrementAndGet();
                    removed++;
                }
            }
            return removed;
        }
    }
}
