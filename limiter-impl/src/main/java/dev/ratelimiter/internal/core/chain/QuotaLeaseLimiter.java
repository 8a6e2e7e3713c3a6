package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.QuotaLeaseSettings;
import dev.ratelimiter.internal.core.verdict.Refunds;
import dev.ratelimiter.internal.core.verdict.Verdicts;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreRefund;
import dev.ratelimiter.spi.Sweepable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Quota leases for hot keys (docs/guide.md#quota-leases-for-hot-keys): for a bucket with
 * {@code quota-lease-percent}, this replica takes a share of a key's remaining quota from the shared store in one
 * round trip (a consume of that many attempts, by the store's own rule, so every replica's leases together never
 * pass the limit), decides the key's next calls from it without a round trip, and gives back what it did not use
 * (a refund, by the store's rule: only into the window it was counted in) once the lease sits idle, before taking
 * another, and when the application stops.
 *
 * <p>A lease is sized from the key's rate on this replica under its last lease, over
 * {@link QuotaLeaseSettings#idle()} or the rest of its shortest window if shorter, at most
 * {@link QuotaLeaseSettings#largestLease}; the first lease of a key is its call alone. A lease decides until its
 * shortest window ends, a token bucket's until its tokens would have refilled; a take while it still decides adds
 * to it, otherwise what is left of it goes back first, into the windows still open. When the store refuses a take,
 * what the refusal says is left is taken instead, and when even that is refused the call is decided alone, so a
 * refusal's {@code resetAfter} is the call's own. Only the call that takes a lease waits for the store: while it
 * does, the key's other calls on this replica are decided alone, each in its own round trip.
 *
 * <p>The bound: the store counts a take whole when it is made, so the attempts allowed in a fixed window never pass
 * its limit, whatever the replicas and interleavings; a token bucket admits over any span from a take at most its
 * burst and its refill, but at one instant up to one lease per replica beyond its burst (tokens counted when leased,
 * used once the bucket refilled). The cost is refusals while quota sits unused in another replica's lease, at most
 * {@link QuotaLeaseSettings#largestLease} per replica and key, until it is idle for {@link QuotaLeaseSettings#idle()}
 * (given back) or its windows end (a replica that died), and a verdict's {@code remaining} that does not see other
 * replicas' use since their take. A reset of the key on another replica is not seen here: a give-back after it may
 * credit the key's new window with up to one lease.
 *
 * <p>It sits inside the outage policy ({@link SharedStoreChain}): a take that fails answers {@code UNAVAILABLE} and
 * the bucket's policy decides the call, while a lease already held goes on deciding locally in an outage; the
 * verdicts it answers are carried into the fallback as the store's are, so the fallback starts from them. Buckets
 * without quota leases, and permits, pass through unchanged.
 */
public final class QuotaLeaseLimiter implements BatchingLimiter, PermitsPassThrough, Sweepable, AutoCloseable {

    private final Limiter store;
    private final Map<String, QuotaLeaseSettings> settings;
    private final RateLimiterMetrics metrics;
    private final LongSupplier nanos;
    private final Map<String, ConcurrentHashMap<String, QuotaLease>> leases = new ConcurrentHashMap<>();

    /**
     * @param store    the limiter whose quota is leased: the refusals kept in memory and the breaker around the store
     * @param settings each leasing bucket's settings, by name; startup's only
     * @param metrics  told of each lease taken and given back, and each decision made from one
     * @param nanos    a monotonic clock in nanoseconds, as {@link System#nanoTime()}
     */
    public QuotaLeaseLimiter(Limiter store, Map<String, QuotaLeaseSettings> settings, RateLimiterMetrics metrics,
                             LongSupplier nanos) {
        this.store = Objects.requireNonNull(store, "store");
        this.settings = Map.copyOf(settings);
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.nanos = Objects.requireNonNull(nanos, "nanos");
        for (String bucket : settings.keySet()) {
            leases.put(bucket, new ConcurrentHashMap<>());
        }
    }

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        QuotaLeaseSettings leasing = settings.get(bucket.name());
        if (leasing == null || bucket.isSlidingWindow() || bucket.isConcurrency()) {
            return store.consume(bucket, key, cost); // a reload may have made it one that cannot lease
        }
        ConcurrentHashMap<String, QuotaLease> keys = leases.get(bucket.name());
        long needed = Verdicts.needed(cost);
        while (true) {
            QuotaLease lease = keys.get(key);
            if (lease == null) {
                lease = keys.computeIfAbsent(key, k -> new QuotaLease(nanos.getAsLong()));
            }
            long now;
            StoreRefund refund;
            long size;
            boolean added;
            synchronized (lease) {
                if (lease.retired) {
                    continue;
                }
                now = nanos.getAsLong();
                if (lease.holds(bucket, needed, now)) {
                    lease.used += cost;
                    lease.lastUse = now;
                    metrics.localDecision(bucket);
                    return lease.verdict(now);
                }
                if (cost == 0 || lease.taking) {
                    // A check takes no lease (no call may follow it); while another call takes one, this call is
                    // decided alone rather than waiting for that round trip.
                    break;
                }
                lease.taking = true;
                size = lease.nextSize(leasing, bucket, needed, now);
                added = lease.extendable(bucket, now);
                // One lease per key and replica: what is left of one that no longer decides goes back first.
                refund = added ? null : emptied(key, lease, now);
            }
            return lease(bucket, key, cost, lease, now, refund, size, added);
        }
        return store.consume(bucket, key, cost);
    }

    /**
     * Takes a lease for a call, outside the lease's monitor (its {@code taking} flag held): gives back what is left
     * of the last one, asks the store, and records what it counted.
     */
    private Verdict lease(Bucket bucket, String key, long cost, QuotaLease lease, long now, StoreRefund refund,
                          long size, boolean added) {
        Verdict verdict = null;
        long taken = size;
        try {
            if (refund != null) {
                send(List.of(refund));
            }
            long needed = Verdicts.needed(cost);
            verdict = store.consume(bucket, key, taken);
            if (verdict.outcome() == Verdict.Outcome.DENIED && taken > needed && verdict.remaining() >= needed) {
                taken = verdict.remaining(); // what the refusal says is left, if the call fits in it
                verdict = store.consume(bucket, key, taken);
            }
            if (verdict.outcome() == Verdict.Outcome.DENIED && taken != cost) {
                taken = cost; // decided alone: the refusal's remaining and resetAfter are the call's own
                verdict = store.consume(bucket, key, cost);
            }
        } finally {
            synchronized (lease) {
                lease.taking = false;
                if (verdict != null && verdict.outcome() == Verdict.Outcome.ALLOWED) {
                    lease.start(bucket, verdict, taken, now, added && lease.extendable(bucket, now));
                    lease.used += cost;
                    if (taken > cost) {
                        metrics.quotaLeaseTaken(bucket, taken);
                    }
                    verdict = lease.verdict(now);
                }
            }
        }
        return verdict;
    }

    /** Empties a lease, held by the caller: the refund of its unused part, or null when none goes back. */
    private static StoreRefund emptied(String key, QuotaLease lease, long now) {
        long left = lease.left();
        lease.granted = lease.used; // nothing left to decide from, given back or not
        return left > 0 && lease.returnable(now)
                ? Refunds.refund(lease.bucket, key, left, lease.taken, (now - lease.takenAt) / 1_000_000)
                : null;
    }

    /** Sends refunds in one call of the store; counted once they reach it (dropped otherwise, as any refund). */
    private void send(List<StoreRefund> refunds) {
        if (store.refund(refunds)) {
            for (StoreRefund refund : refunds) {
                metrics.quotaLeaseReturned(refund.bucket(), refund.cost());
            }
        }
    }

    /**
     * Gives back the leases idle for their bucket's {@link QuotaLeaseSettings#idle()}, and forgets them.
     *
     * @return the leases forgotten
     */
    @Override
    public long sweep() {
        return giveBackIdle(false);
    }

    /** Gives back every lease's unused part, when the application stops; a lease held past it is decided anew. */
    @Override
    public void close() {
        giveBackIdle(true);
    }

    /**
     * Empties and forgets the idle leases (every lease with {@code all}), each under its monitor, then gives their
     * unused parts back in one call of the store: a caller meanwhile finds no lease and takes a new one.
     */
    private long giveBackIdle(boolean all) {
        long now = nanos.getAsLong();
        long forgotten = 0;
        List<StoreRefund> refunds = new ArrayList<>();
        for (Map.Entry<String, ConcurrentHashMap<String, QuotaLease>> bucket : leases.entrySet()) {
            long idle = settings.get(bucket.getKey()).idle().toNanos();
            for (Map.Entry<String, QuotaLease> entry : bucket.getValue().entrySet()) {
                QuotaLease lease = entry.getValue();
                synchronized (lease) {
                    if (lease.taking || lease.retired || !all && now - lease.lastUse < idle) {
                        continue; // a take under way makes the lease busy, not idle
                    }
                    StoreRefund refund = emptied(entry.getKey(), lease, now);
                    if (refund != null) {
                        refunds.add(refund);
                    }
                    lease.retired = true;
                    bucket.getValue().remove(entry.getKey(), lease);
                    forgotten++;
                }
            }
        }
        if (!refunds.isEmpty()) {
            send(refunds);
        }
        return forgotten;
    }

    /** {@return the shortest idle time of the leasing buckets: how often {@link #sweep()} should run} */
    public Duration shortestIdle() {
        return settings.values().stream().map(QuotaLeaseSettings::idle).min(Duration::compareTo)
                .orElse(QuotaLeaseSettings.MAX_IDLE);
    }

    @Override
    public Verdict[] consumeAll(List<StoreItem> items) {
        for (StoreItem item : items) {
            if (settings.containsKey(item.bucket().name())) {
                return BatchingLimiter.super.consumeAll(items); // one call of consume each, so each may lease
            }
        }
        return BatchingLimiter.consumeAll(store, items); // one round trip, as without leases
    }

    /** Forgets this replica's lease of the key (its quota goes with the reset) and resets the key in the store. */
    @Override
    public void reset(Bucket bucket, String key) {
        ConcurrentHashMap<String, QuotaLease> keys = leases.get(bucket.name());
        QuotaLease lease = keys == null ? null : keys.get(key);
        if (lease != null) {
            synchronized (lease) {
                lease.retired = true;
                keys.remove(key, lease);
            }
        }
        store.reset(bucket, key);
    }

    @Override
    public boolean refund(List<StoreRefund> refunds) {
        return store.refund(refunds);
    }

    /** Permits pass through: a permit is no share of a quota. */
    @Override
    public Limiter permitsTo() {
        return store;
    }

}
