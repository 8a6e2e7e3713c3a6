package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.Sweepable;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The permits this process holds for calls in flight (docs/guide.md#concurrency-limits), and their renewal: every
 * {@link #TICK} a {@link PeriodicSweeper} runs {@link #sweep}, which renews, in one call of the chain per
 * {@link #BATCH} permits, each lease a third of whose length has passed since it was taken or last renewed, so a
 * call that runs longer than its lease keeps its permit, and a replica that dies stops renewing and frees its
 * permits within one lease. A permit whose lease the store no longer holds (a pause longer than the lease, a store
 * that lost it) is forgotten, counted with the expired leases, and warned about once per bucket: its call runs on,
 * beyond the limit's count. The number held per bucket feeds the in-flight gauge.
 *
 * <p>The renewals' thread starts with the first permit held, and stops when the application stops.
 *
 * <p>A permit is added once taken and removed when its call gives it back; one never given back (a call that never
 * ends) is renewed for as long as the application runs, as a call in flight is.
 */
public final class PermitRenewal implements Sweepable, AutoCloseable {

    /** How often due leases are renewed: a lease of one second, the shortest, is renewed within 0.6 s. */
    public static final Duration TICK = Duration.ofMillis(250);

    /** The most permits one renewal call carries. */
    static final int BATCH = 500;

    private static final System.Logger LOG = System.getLogger(PermitRenewal.class.getName());

    private final InstantSource clock;
    private final RateLimiterMetrics metrics;
    private final Map<Long, Held> held = new ConcurrentHashMap<>();
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private volatile Limiter chain;
    private volatile PeriodicSweeper renewals; // started with the first permit held: most applications have none
    private boolean closed;

    /**
     * @param clock   the library's clock, which times renewals
     * @param metrics told of each permit held and given back, and of each lease found ended
     */
    public PermitRenewal(InstantSource clock, RateLimiterMetrics metrics) {
        this(clock, metrics, true);
    }

    /** As above; {@code scheduled} false: no thread of its own, {@link #sweep} runs only when called (tests). */
    PermitRenewal(InstantSource clock, RateLimiterMetrics metrics, boolean scheduled) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.closed = !scheduled;
    }

    /** Names the chain the leases are renewed through, once it is built. */
    void renewThrough(Limiter chain) {
        this.chain = Objects.requireNonNull(chain, "chain");
    }

    /**
     * A permit taken for a call now in flight.
     *
     * @param permit the permit, its key hashed
     */
    public void held(StorePermit permit) {
        if (renewals == null) {
            start();
        }
        if (held.put(permit.id(), new Held(permit, clock.millis())) == null) {
            metrics.permitsInFlight(permit.bucket(), 1);
        }
    }

    private synchronized void start() {
        if (renewals == null && !closed && chain != null) {
            renewals = new PeriodicSweeper(this, TICK);
        }
    }

    /** Stops renewing; a permit still held ends with its lease. */
    @Override
    public synchronized void close() {
        closed = true;
        if (renewals != null) {
            renewals.close();
        }
    }

    /**
     * Permits whose calls ended and are given back: no longer renewed.
     *
     * @param permits the permits
     */
    public void released(List<StorePermit> permits) {
        for (StorePermit permit : permits) {
            if (held.remove(permit.id()) != null) {
                metrics.permitsInFlight(permit.bucket(), -1);
            }
        }
    }

    /**
     * Renews the leases that are due; never throws for a store failure (an unanswered renewal is tried again at the
     * next tick, within the lease).
     *
     * @return how many permits were found no longer held, and forgotten
     */
    @Override
    public long sweep() {
        Limiter through = chain;
        if (through == null || held.isEmpty()) {
            return 0;
        }
        long now = clock.millis();
        List<Held> due = new ArrayList<>();
        for (Held h : held.values()) {
            if (now - h.renewedAt >= h.permit.leaseMillis() / 3) {
                due.add(h);
            }
        }
        long lost = 0;
        for (int from = 0; from < due.size(); from += BATCH) {
            List<Held> batch = due.subList(from, Math.min(due.size(), from + BATCH));
            boolean[] answer = through.renew(batch.stream().map(h -> h.permit).toList());
            if (answer == null) {
                continue;
            }
            for (int i = 0; i < answer.length; i++) {
                Held h = batch.get(i);
                if (answer[i]) {
                    h.renewedAt = now;
                } else if (held.remove(h.permit.id(), h)) {
                    lost++;
                    lostLease(h.permit.bucket());
                }
            }
        }
        return lost;
    }

    private void lostLease(Bucket bucket) {
        metrics.permitsInFlight(bucket, -1);
        metrics.expiredLeases(bucket, 1);
        if (warned.add(bucket.name())) {
            LOG.log(System.Logger.Level.WARNING, "Rate limiter: a call of bucket ''{0}'' outlived its permit''s lease "
                    + "of {1} (the store was unreachable or paused for longer); it runs on without one. If calls are "
                    + "often this late, raise ratelimiter.buckets.{0}.lease. Logged once per bucket.", bucket.name(),
                    bucket.lease());
        }
    }

    /** A permit held, and when its lease was last renewed (the library's clock, milliseconds). */
    private static final class Held {
        final StorePermit permit;
        volatile long renewedAt;

        Held(StorePermit permit, long renewedAt) {
            this.permit = permit;
            this.renewedAt = renewedAt;
        }
    }
}
