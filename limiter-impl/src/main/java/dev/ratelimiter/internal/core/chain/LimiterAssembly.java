package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.internal.core.key.CounterKeyHasher;
import dev.ratelimiter.internal.core.key.KeyHasher;
import dev.ratelimiter.internal.core.key.KeyListsByBucket;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.BackendStatus;
import dev.ratelimiter.internal.core.monitor.CompositeOutageListener;
import dev.ratelimiter.internal.core.monitor.DecisionMarks;
import dev.ratelimiter.internal.core.monitor.OutageListener;
import dev.ratelimiter.internal.core.monitor.OutageStatistics;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import dev.ratelimiter.internal.core.limiter.DisabledLimiter;
import dev.ratelimiter.spi.RateLimitStore;

import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The limiter chain, built once from the settings in plain Java, without a container
 * (docs/architecture.md#the-outage-chain): in memory, {@code BlockLimiter(OutagePolicyLimiter(MemoryRateLimiter))};
 * with a shared store, {@code BlockLimiter(OutagePolicyLimiter(DenyCacheLimiter(CircuitBreakerLimiter(store)),
 * fallback: MemoryRateLimiter))} (the deny cache only when {@code ratelimiter.deny-cache.max-age} is not 0, and a
 * {@link QuotaLeaseLimiter} inside the outage policy when a bucket leases quota); with {@code ratelimiter.enabled=false}, a
 * limiter that allows everything. Beside the chain: the monitor of the store's state, the key hashing, the buckets in
 * shadow mode, the outage counts, and what to close when the application stops.
 *
 * @param limiter   the whole chain, which decides on hashed keys: a {@link BlockLimiter} unless the limiter is off
 * @param monitor   the store's state, for readiness and the state-change event
 * @param keys      hashes normalized keys before they are counted, and for the denial event
 * @param shadow    the buckets in shadow mode
 * @param lists     each bucket's allow and deny lists in force, checked before the chain is asked
 * @param outages   attempts answered by an outage policy, per bucket
 * @param marks     which buckets the fallback decided, or a block refused, on the deciding thread, for the trace port
 * @param blocking  whether a decision may wait on the network or a lock ({@link RateLimitStore#blocking()})
 * @param shutdown  what the chain opened, in close order
 * @param permits   the concurrency buckets' permits this process holds, renewed through the chain
 */
public record LimiterAssembly(Limiter limiter, BackendMonitor monitor, CounterKeyHasher keys, ShadowMode shadow,
                              KeyListsByBucket lists, OutageStatistics outages, DecisionMarks marks,
                              boolean blocking, Shutdown shutdown, PermitRenewal permits) {

    private static final System.Logger LOG = System.getLogger(LimiterAssembly.class.getName());

    /** @throws NullPointerException for any {@code null} */
    public LimiterAssembly {
        Objects.requireNonNull(limiter, "limiter");
        Objects.requireNonNull(monitor, "monitor");
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(shadow, "shadow");
        Objects.requireNonNull(lists, "lists");
        Objects.requireNonNull(outages, "outages");
        Objects.requireNonNull(marks, "marks");
        Objects.requireNonNull(shutdown, "shutdown");
        Objects.requireNonNull(permits, "permits");
    }

    /**
     * What a shared store's chain is built from, once the parts every chain shares exist.
     *
     * @param settings the settings ({@code ratelimiter.breaker.*}, {@code ratelimiter.deny-cache.max-age})
     * @param clock    the library's clock
     * @param metrics  the metrics port
     * @param monitor  the store's state, told of each failure
     * @param fallback the per-process limiter for {@code FALLBACK} buckets
     * @param outages  told of every attempt an outage policy answered
     */
    public record ChainInputs(LimiterSettings settings, InstantSource clock, RateLimiterMetrics metrics,
                              BackendMonitor monitor, MemoryRateLimiter fallback, OutageListener outages) {
    }

    /** A shared store, started once the monitor exists (a store's start may already report to it). */
    public interface SharedStore {

        /**
         * Starts the store and builds the outage chain around it.
         *
         * @param inputs   what the chain is built from
         * @param shutdown where to register what the store opened: {@link Shutdown#first} for what calls the store
         *                 on its own, {@link Shutdown#then} for its client
         * @return the chain; its breaker and refusal cache are registered by the assembly
         * @throws dev.ratelimiter.spi.ConfigurationException naming each property to change
         */
        SharedStoreChain start(ChainInputs inputs, Shutdown shutdown);

        /** Whether the store's calls wait on the network or a lock. */
        boolean blocking();
    }

    /**
     * A store of the SPI as the shared store: the generic path of every provider.
     *
     * @param store   the provider's store, closed after the chain
     * @param context what the store's build context started (its sweeps), closed before the chain; may be a
     *                no-op
     * @return the shared store
     */
    public static SharedStore of(RateLimitStore store, AutoCloseable context) {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(context, "context");
        return new SharedStore() {
            @Override
            public SharedStoreChain start(ChainInputs in, Shutdown shutdown) {
                shutdown.first(context);
                shutdown.then(store);
                return SharedStoreChain.of(store, in.monitor(), in.clock(), in.fallback(), in.outages(),
                        in.settings().breaker(), in.settings().denyCache(), in.metrics(), in.settings().quotaLeases());
            }

            @Override
            public boolean blocking() {
                return store.blocking();
            }
        };
    }

    /**
     * Builds the chain. The warnings an operator must see (no key secret, the limiter disabled) are the caller's
     * to log, under its own logger name.
     *
     * @param settings the settings; {@link LimiterSettings#backend()} names the store
     * @param store    the shared store; empty for {@code memory}
     * @param clock    the library's clock
     * @param metrics  the metrics port every part reports to
     * @param onChange told of each change of the store's state, from the start on
     * @return the chain and its parts
     * @throws dev.ratelimiter.spi.ConfigurationException from the store's start; what was opened is closed
     */
    public static LimiterAssembly assemble(LimiterSettings settings, Optional<SharedStore> store,
                                           InstantSource clock, RateLimiterMetrics metrics,
                                           Consumer<BackendStatus> onChange) {
        KeyHasher hasher = new KeyHasher(settings.keySecret());
        // In memory the counted key never leaves the process: a faster keyed hash; a shared store's replicas must
        // agree on each key (docs/architecture.md#the-path-of-a-request).
        CounterKeyHasher keys = store.isEmpty() ? CounterKeyHasher.inProcess(hasher) : CounterKeyHasher.shared(hasher);
        OutageStatistics outages = new OutageStatistics();
        DecisionMarks marks = new DecisionMarks();
        ShadowMode shadow = new ShadowMode(settings.shadowBuckets(), clock, settings.memoryMaxKeys(), metrics);
        KeyListsByBucket lists = new KeyListsByBucket(settings.lists(), settings.enabled());
        BackendMonitor monitor = new BackendMonitor(settings.backend(), clock, metrics);
        monitor.onChange(onChange);
        Shutdown shutdown = new Shutdown();
        PermitRenewal permits = new PermitRenewal(clock, metrics);
        if (!settings.enabled()) {
            return new LimiterAssembly(new DisabledLimiter(), monitor, keys, shadow, lists, outages, marks, false,
                    shutdown, permits);
        }
        MemoryRateLimiter memory = new MemoryRateLimiter(clock, settings.memoryMaxKeys());
        shutdown.then(new PeriodicSweeper(memory, settings.memorySweepInterval()));
        if (!settings.shadowBuckets().isEmpty()) {
            LOG.log(System.Logger.Level.INFO, "Rate limiter: buckets in shadow mode (counted, never refused): {0}",
                    String.join(", ", settings.shadowBuckets()));
            shutdown.then(new PeriodicSweeper(shadow, settings.memorySweepInterval()));
        }
        if (!settings.lists().isEmpty()) {
            // how many entries, not which: an operator checks the lists in force without addresses in the log
            LOG.log(System.Logger.Level.INFO, "Rate limiter: buckets with allow or deny lists: {0}",
                    settings.lists().entrySet().stream().sorted(Map.Entry.comparingByKey())
                            .map(entry -> entry.getKey() + " (allow " + entry.getValue().allowed().size()
                                    + ", deny " + entry.getValue().denied().size() + ")")
                            .collect(Collectors.joining(", ")));
        }
        if (!settings.blocks().isEmpty()) {
            LOG.log(System.Logger.Level.INFO,
                    "Rate limiter: buckets with blocks after a refusal or upstream holds: {0}",
                    settings.blocks().entrySet().stream().sorted(Map.Entry.comparingByKey())
                            .map(entry -> entry.getKey() + " (" + entry.getValue().describe() + ")")
                            .collect(Collectors.joining(", ")));
        }
        CompositeOutageListener listeners = new CompositeOutageListener(List.of(outages, metrics, marks));
        if (store.isEmpty()) {
            if (!settings.quotaLeases().isEmpty()) {
                LOG.log(System.Logger.Level.INFO, "Rate limiter: quota-lease-percent of buckets {0} applies with a "
                        + "shared store only; the in-memory store decides every call in this process already",
                        String.join(", ", new TreeSet<>(settings.quotaLeases().keySet())));
            }
            BlockLimiter limiter = new BlockLimiter(new OutagePolicyLimiter(memory, Optional.empty(), listeners),
                    settings.blocks(), marks);
            return new LimiterAssembly(limiter, monitor, keys, shadow, lists, outages, marks, false, shutdown,
                    renewing(permits, limiter, shutdown));
        }
        SharedStoreChain chain;
        try {
            chain = store.get().start(new ChainInputs(settings, clock, metrics, monitor, memory, listeners),
                    shutdown);
        } catch (RuntimeException | Error e) {
            shutdown.close(); // the sweepers started above, and what the store registered
            throw e;
        }
        // The breaker closes first, so its probe stops before the store's client closes.
        shutdown.first(chain.breaker());
        chain.denyCache().ifPresent(refusals -> shutdown.then(new PeriodicSweeper(refusals,
                settings.memorySweepInterval())));
        chain.quotaLeases().ifPresent(leases -> {
            // Given back before the breaker closes, and after the sweep that gives idle ones back has stopped.
            shutdown.first(leases);
            shutdown.first(new PeriodicSweeper(leases, leases.shortestIdle().dividedBy(2)));
            LOG.log(System.Logger.Level.INFO, "Rate limiter: buckets with quota leases: {0}",
                    settings.quotaLeases().entrySet().stream().sorted(Map.Entry.comparingByKey())
                            .map(entry -> entry.getKey() + " (up to " + entry.getValue().percent() + " %, idle after "
                                    + entry.getValue().idle() + ")")
                            .collect(Collectors.joining(", ")));
        });
        BlockLimiter limiter = new BlockLimiter(chain.limiter(), settings.blocks(), marks);
        return new LimiterAssembly(limiter, monitor, keys, shadow, lists, outages, marks, store.get().blocking(),
                shutdown, renewing(permits, limiter, shutdown));
    }

    /**
     * The permits' renewal through the whole chain; it stops first when the application stops, before the store's
     * client closes (a permit left then ends with its lease).
     */
    private static PermitRenewal renewing(PermitRenewal permits, Limiter chain, Shutdown shutdown) {
        permits.renewThrough(chain);
        shutdown.first(permits);
        return permits;
    }
}
