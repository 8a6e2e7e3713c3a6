package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.settings.BreakerSettings;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.StoreRefund;
import dev.ratelimiter.spi.StoreParts;

import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A circuit breaker in front of a shared store's limiter. Closed, it passes every call to the store and counts
 * consecutive {@link Verdict.Outcome#UNAVAILABLE} verdicts; at {@link BreakerSettings#failureThreshold()} it
 * opens. Open, it does not call the store at all: every attempt is answered {@code UNAVAILABLE} at once, with
 * the time until the next probe as {@code resetAfter} (so a fail-closed bucket's {@code Retry-After} is the
 * remaining back-off, at least 1 s), and the outage policy decides. So at most the few requests that meet the
 * first failures wait for a deadline.
 *
 * <p>While open, a background thread (never a user request) probes the store: first after
 * {@link BreakerSettings#initialBackoff()}, then doubling after each failure up to
 * {@link BreakerSettings#maxBackoff()}; after {@link BreakerSettings#successThreshold()} successes in a row it
 * closes the breaker. Openings and closings are reported to the {@link BackendMonitor}.
 *
 * <p>For a store of {@link StoreParts} (a Valkey cluster's masters) all of this is kept per part: the failures of
 * one part open the breaker for its keys only, each part is probed on its own, and the monitor is told which
 * parts are failing. The parts share the one probe thread.
 *
 * <p>{@link #consumeAll Several items} are one store call, so one failure or one success of the breaker. With
 * parts, the items go in runs of consecutive items of one part, one call per run, each counted for its part only:
 * the state of each part stays what one call per part would make it.
 *
 * <p>Over a {@link StoreLimiter}, the breaker counts round trips, as that limiter reports them
 * ({@link RoundTripListener}), rather than verdicts: a round trip that carried many waiting calls and failed is one
 * failure (docs/stores.md#batching). Over any other limiter, each call's verdict counts.
 */
public final class CircuitBreakerLimiter implements BatchingLimiter, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(CircuitBreakerLimiter.class.getName());

    private final Limiter store;
    private final StoreParts parts; // null: the store fails as a whole
    private final BackendMonitor monitor;
    private final InstantSource clock;
    private final BreakerSettings settings;
    private final ScheduledExecutorService prober;
    private final Part whole;
    private final ConcurrentMap<String, Part> byName = new ConcurrentHashMap<>();
    private final boolean countsVerdicts; // false when the store's limiter reports its round trips

    /**
     * A breaker for a store that fails as a whole.
     *
     * @param store    the store's limiter, which answers {@code UNAVAILABLE} for its failures
     * @param probe    one cheap round trip to the store
     * @param monitor  told when the breaker opens and closes
     * @param clock    for the remaining back-off
     * @param settings thresholds and back-off
     */
    public CircuitBreakerLimiter(Limiter store, StoreProbe probe, BackendMonitor monitor, InstantSource clock,
                                 BreakerSettings settings) {
        this(store, probe, null, monitor, clock, settings);
    }

    /**
     * A breaker per part of the store.
     *
     * @param store    the store's limiter, which answers {@code UNAVAILABLE} for its failures
     * @param parts    which part holds a key, and each part's probe
     * @param monitor  told when a part's breaker opens and closes
     * @param clock    for the remaining back-off
     * @param settings thresholds and back-off, for each part
     */
    public CircuitBreakerLimiter(Limiter store, StoreParts parts, BackendMonitor monitor, InstantSource clock,
                                 BreakerSettings settings) {
        this(store, null, Objects.requireNonNull(parts, "parts"), monitor, clock, settings);
    }

    private CircuitBreakerLimiter(Limiter store, StoreProbe probe, StoreParts parts, BackendMonitor monitor,
                                  InstantSource clock, BreakerSettings settings) {
        this.store = Objects.requireNonNull(store, "store");
        this.parts = parts;
        this.monitor = Objects.requireNonNull(monitor, "monitor");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.whole = parts == null ? new Part(null, Objects.requireNonNull(probe, "probe")) : null;
        if (store instanceof StoreLimiter reporting) {
            reporting.reportRoundTripsTo((first, failed) -> partOf(first.bucket(), first.key()).record(failed));
            this.countsVerdicts = false;
        } else {
            this.countsVerdicts = true;
        }
        this.prober = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ratelimiter-breaker-probe");
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        Part part = partOf(bucket, key);
        if (part.open.get()) {
            return Verdict.unavailable(bucket.limit(), part.untilNextProbe());
        }
        Verdict verdict = store.consume(bucket, key, cost);
        if (countsVerdicts) {
            part.record(verdict.outcome() == Verdict.Outcome.UNAVAILABLE);
        }
        return verdict;
    }

    /**
     * Sends the refunds on to the store's limiter, unless the breaker is open for one of them: then all are dropped
     * at once, as a failed round trip drops them, without a call (a refund is never kept for later: it could land in
     * a later window). A refund's outcome does not move the breaker: it is not a decision.
     *
     * @return false if they were dropped here or by the store's limiter
     */
    @Override
    public boolean refund(List<StoreRefund> refunds) {
        for (StoreRefund refund : refunds) {
            if (partOf(refund.bucket(), refund.key()).open.get()) {
                return false;
            }
        }
        return store.refund(refunds);
    }

    /** A take through the breaker: refused as {@code UNAVAILABLE} while the key's part is open, else counted. */
    @Override
    public Verdict take(StorePermit permit) {
        Part part = partOf(permit.bucket(), permit.key());
        if (part.open.get()) {
            return Verdict.unavailable(permit.bucket().limit(), part.untilNextProbe());
        }
        Verdict verdict = store.take(permit);
        part.record(verdict.outcome() == Verdict.Outcome.UNAVAILABLE);
        return verdict;
    }

    /** Permits of a part that is open are not sent (false): each ends with its lease. */
    @Override
    public boolean giveBack(List<StorePermit> permits) {
        List<StorePermit> reachable = permits.stream()
                .filter(permit -> !partOf(permit.bucket(), permit.key()).open.get()).toList();
        boolean given = reachable.isEmpty() || store.giveBack(reachable);
        return given && reachable.size() == permits.size();
    }

    /**
     * Renews the permits of the parts that are closed in one call; a permit of an open part is not sent, and
     * reported held, so it is asked again at its next renewal (its lease may end meanwhile, as the part is down),
     * while the others' leases go on. {@code null} (unknown) when no part could be asked.
     */
    @Override
    public boolean[] renew(List<StorePermit> permits) {
        List<StorePermit> reachable = new ArrayList<>(permits.size());
        boolean[] open = new boolean[permits.size()];
        for (int i = 0; i < open.length; i++) {
            StorePermit permit = permits.get(i);
            open[i] = partOf(permit.bucket(), permit.key()).open.get();
            if (!open[i]) {
                reachable.add(permit);
            }
        }
        if (reachable.isEmpty()) {
            return null;
        }
        boolean[] renewed = store.renew(reachable);
        if (renewed == null || reachable.size() == permits.size()) {
            return renewed;
        }
        boolean[] held = new boolean[permits.size()];
        for (int i = 0, r = 0; i < held.length; i++) {
            held[i] = open[i] || renewed[r++];
        }
        return held;
    }

    /**
     * Decides the items in runs of one part (the whole store when it has no parts), one call of the store's
     * limiter per run. An open part answers {@code UNAVAILABLE} for each item of its run without a call, and the
     * answer ends there; so does it after a run with a refusal. The outage policy asks again for the rest.
     *
     * @param items one or more items, keys hashed
     * @return one verdict per decided item, in order
     */

    @Override
    public Verdict[] consumeAll(List<StoreItem> items) {
        if (whole != null) {
            return run(whole, items);
        }
        Part first = partOf(items.get(0).bucket(), items.get(0).key());
        int end = 1;
        while (end < items.size() && partOf(items.get(end).bucket(), items.get(end).key()) == first) {
            end++;
        }
        Verdict[] verdicts = run(first, end == items.size() ? items : items.subList(0, end));
        if (end == items.size() || verdicts.length < end || verdicts[end - 1].outcome() != Verdict.Outcome.ALLOWED) {
            return verdicts;
        }
        Verdict[] rest = consumeAll(items.subList(end, items.size()));
        Verdict[] all = Arrays.copyOf(verdicts, end + rest.length);
        System.arraycopy(rest, 0, all, end, rest.length);
        return all;
    }

    /** One call for a run of items of one part; an open part answers without it. */
    private Verdict[] run(Part part, List<StoreItem> items) {
        if (part.open.get()) {
            Duration untilNextProbe = part.untilNextProbe();
            Verdict[] verdicts = new Verdict[items.size()];
            for (int i = 0; i < verdicts.length; i++) {
                verdicts[i] = Verdict.unavailable(items.get(i).bucket().limit(), untilNextProbe);
            }
            return verdicts;
        }
        Verdict[] verdicts = BatchingLimiter.consumeAll(store, items);
        if (!countsVerdicts) {
            return verdicts;
        }
        boolean failed = false;
        for (Verdict verdict : verdicts) {
            failed |= verdict.outcome() == Verdict.Outcome.UNAVAILABLE;
        }
        part.record(failed);
        return verdicts;
    }

    @Override
    public void reset(Bucket bucket, String key) {
        if (!partOf(bucket, key).open.get()) {
            store.reset(bucket, key);
        }
    }

    /** {@code true} while the store, or any part of it, is not being called. */
    public boolean isOpen() {
        if (whole != null) {
            return whole.open.get();
        }
        return byName.values().stream().anyMatch(part -> part.open.get());
    }

    /** Stops the probe; the breaker stays as it is. */
    @Override
    public void close() {
        prober.shutdownNow();
    }

    private Part partOf(Bucket bucket, String key) {
        if (whole != null) {
            return whole;
        }
        String name = parts.partOf(bucket, key);
        Part part = byName.get(name); // get first: computeIfAbsent may lock even when present
        return part != null ? part : byName.computeIfAbsent(name, n -> new Part(n, () -> parts.probe(n)));
    }

    /** One breaker's state: the whole store's, or one part's. */
    private final class Part {

        private final String name; // null for the whole store
        private final StoreProbe probe;
        private final AtomicInteger consecutiveFailures = new AtomicInteger();
        private final AtomicBoolean open = new AtomicBoolean();
        private volatile long nextProbeAt;
        private volatile Duration backoff = settings.initialBackoff();
        private int probeSuccesses; // only the prober thread touches it

        Part(String name, StoreProbe probe) {
            this.name = name;
            this.probe = probe;
        }

        /** Counts one call: a failure towards the threshold, a success clears the count. */
        void record(boolean failed) {
            if (failed) {
                if (consecutiveFailures.incrementAndGet() >= settings.failureThreshold()) {
                    trip();
                }
            } else if (consecutiveFailures.get() != 0) {
                consecutiveFailures.set(0); // read first: a shared write on every call would contend
            }
        }

        void trip() {
            if (!open.compareAndSet(false, true)) {
                return;
            }
            backoff = settings.initialBackoff();
            if (name == null) {
                monitor.degraded();
            } else {
                monitor.degraded(name);
            }
            scheduleProbe(backoff);
        }

        private void scheduleProbe(Duration delay) {
            nextProbeAt = clock.millis() + delay.toMillis();
            try {
                prober.schedule(this::runProbe, delay.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // closed: the application is stopping
            }
        }

        private void runProbe() {
            try {
                probe.probe();
                probeSuccesses++;
                if (probeSuccesses >= settings.successThreshold()) {
                    probeSuccesses = 0;
                    consecutiveFailures.set(0);
                    open.set(false);
                    if (name == null) {
                        monitor.recovered();
                    } else {
                        monitor.recovered(name);
                    }
                    return;
                }
                backoff = settings.initialBackoff();
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                // An Error too (a store's LinkageError, AssertionError): escaping, it would end the probe's chain of
                // schedules for good and leave the breaker open until a restart
                probeSuccesses = 0;
                monitor.failure(e);
                Duration doubled = backoff.multipliedBy(2);
                backoff = doubled.compareTo(settings.maxBackoff()) > 0 ? settings.maxBackoff() : doubled;
                LOG.log(System.Logger.Level.DEBUG, "probe of {0} failed; next in {1}",
                        name == null ? "the store" : name, backoff);
            }
            scheduleProbe(backoff);
        }

        Duration untilNextProbe() {
            // Bounded by the longest back-off: the probe runs on a timer of elapsed time, so a clock stepped back
            // must not make the answer (a fail-closed bucket's Retry-After) longer than the wait really is.
            long millis = Math.min(nextProbeAt - clock.millis(), settings.maxBackoff().toMillis());
            return Duration.ofMillis(Math.max(1_000, millis));
        }
    }
}
