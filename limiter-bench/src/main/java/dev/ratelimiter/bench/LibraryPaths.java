package dev.ratelimiter.bench;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitDenied;
import dev.ratelimiter.internal.core.verdict.Refunds;
import dev.ratelimiter.spi.StoreRefund;
import dev.ratelimiter.internal.core.decision.NearLimit;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.contract.CountingLimiter;
import dev.ratelimiter.internal.core.chain.BlockLimiter;
import dev.ratelimiter.internal.core.chain.OutagePolicyLimiter;
import dev.ratelimiter.internal.core.monitor.DecisionMarks;
import dev.ratelimiter.internal.core.chain.PeriodicSweeper;
import dev.ratelimiter.internal.core.chain.PlainStoreContext;
import dev.ratelimiter.internal.core.chain.QuotaLeaseLimiter;
import dev.ratelimiter.internal.core.chain.SharedStoreChain;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.chain.StoreProbe;
import dev.ratelimiter.internal.core.key.CounterKeyHasher;
import dev.ratelimiter.internal.core.key.KeyHasher;
import dev.ratelimiter.internal.core.key.KeyLists;
import dev.ratelimiter.internal.core.key.KeyListsByBucket;
import dev.ratelimiter.internal.core.key.KeyNamespace;
import dev.ratelimiter.internal.core.key.KeyNormalizer;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.internal.core.time.ElapsedTimeClock;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.BackendState;
import dev.ratelimiter.internal.core.monitor.CompositeOutageListener;
import dev.ratelimiter.internal.core.monitor.DecisionTracer;
import dev.ratelimiter.internal.core.monitor.MetricsSwitch;
import dev.ratelimiter.internal.core.monitor.OutageStatistics;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.BreakerSettings;
import dev.ratelimiter.internal.core.settings.DenyCacheSettings;
import dev.ratelimiter.internal.core.settings.QuotaLeaseSettings;
import dev.ratelimiter.internal.core.settings.SubtreeConfig;
import dev.ratelimiter.internal.metrics.BenchMetrics;
import dev.ratelimiter.internal.postgres.HikariPools;
import dev.ratelimiter.internal.postgres.PostgresSettings;
import dev.ratelimiter.internal.postgres.PostgresStoreProvider;
import dev.ratelimiter.internal.valkey.ValkeyLayout;
import dev.ratelimiter.internal.valkey.ValkeySettings;
import dev.ratelimiter.internal.valkey.ValkeyStoreProvider;
import redis.clients.jedis.UnifiedJedis;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * The one place the benchmark builds the library's objects: its stores as the runtime starts them, and the whole
 * decision path as {@code RateLimitDecider.decide} takes it (normalize, hash, outage policy, refusals kept in
 * memory, breaker, store, metrics, denial event). When the runtime's assembly changes (issue 10 moves it into
 * {@code core}), only this class follows.
 *
 * <p>Settings: the library's defaults (Valkey pool 32, PostgreSQL pool and bulkhead 16) except the deadline,
 * {@link #TIMEOUT}, raised from 100 ms so a loaded shared machine measures speed rather than timeouts.
 */
final class LibraryPaths {

    static final Duration TIMEOUT = Duration.ofSeconds(1);
    static final String KEY_PREFIX = "rl:";
    static final String TABLE = "rate_limit_counters";
    private static final String SECRET = "benchmark-secret";
    private static final KeyHasher HASHER = new KeyHasher(Optional.of(SECRET)); // thread-safe

    private LibraryPaths() {
    }

    static ValkeySettings valkeySettings(String url, Duration timeout) {
        return new ValkeySettings(ValkeySettings.Mode.STANDALONE, url, List.of(), Optional.empty(),
                Optional.empty(), Optional.empty(), timeout, KEY_PREFIX, 32, Optional.empty(), Optional.empty());
    }

    static PostgresSettings postgresSettings(String jdbcUrl, Duration timeout) {
        return new PostgresSettings(Optional.empty(), Optional.of(jdbcUrl), Optional.of("postgres"),
                Optional.empty(), TABLE, timeout, Duration.ofMinutes(5), 16, false);
    }

    /** The Valkey client with the library's client and pool settings, for bare loops and Bucket4j. */
    static UnifiedJedis valkeyClient(String url) {
        return ValkeyLayout.client(valkeySettings(url, TIMEOUT));
    }

    /** A pool with the library's own pool settings, for bare loops and Bucket4j. */
    static DataSource postgresPool(String jdbcUrl) {
        return HikariPools.create(postgresSettings(jdbcUrl, TIMEOUT));
    }

    static void closePool(DataSource pool) {
        HikariPools.close(pool);
    }

    /** A store as the runtime starts it: its limiter, the breaker's probe, and what closes it. */
    record Store(String backend, Limiter limiter, StoreProbe probe, BackendMonitor monitor,
                 AutoCloseable resources, LongSupplier roundTrips) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            resources.close();
        }
    }

    static Store valkey(String url, Duration timeout, RateLimiterMetrics metrics) {
        return valkey(url, timeout, metrics, true);
    }

    /** The store with batching on (the default) or off ({@code ratelimiter.valkey.batching}). */
    static Store valkey(String url, Duration timeout, RateLimiterMetrics metrics, boolean batching) {
        BackendMonitor monitor = new BackendMonitor("valkey", InstantSource.system(), metrics);
        Map<String, String> properties = Map.of("ratelimiter.valkey.url", url, "ratelimiter.valkey.timeout",
                timeout.toString(), "ratelimiter.valkey.key-prefix", KEY_PREFIX, "ratelimiter.valkey.pool-size", "32",
                "ratelimiter.valkey.batching", Boolean.toString(batching));
        CountingStore store = new CountingStore(new ValkeyStoreProvider().create(new PlainStoreContext(
                new SubtreeConfig("valkey", name -> Optional.ofNullable(properties.get(name))), InstantSource.system(),
                Optional.empty())));
        return new Store("valkey", new StoreLimiter(store, monitor, metrics), store::probe, monitor, store,
                store::roundTrips);
    }

    static Store postgres(String jdbcUrl, Duration timeout, RateLimiterMetrics metrics) {
        return postgres(jdbcUrl, timeout, metrics, true);
    }

    /** The store with batching on (the default) or off ({@code ratelimiter.postgres.batching}). */
    static Store postgres(String jdbcUrl, Duration timeout, RateLimiterMetrics metrics, boolean batching) {
        BackendMonitor monitor = new BackendMonitor("postgres", InstantSource.system(), metrics);
        Map<String, String> properties = Map.of("ratelimiter.postgres.url", jdbcUrl,
                "ratelimiter.postgres.user", "postgres", "ratelimiter.postgres.table", TABLE,
                "ratelimiter.postgres.timeout", timeout.toString(),
                "ratelimiter.postgres.batching", Boolean.toString(batching));
        PlainStoreContext context = new PlainStoreContext(new SubtreeConfig("postgres",
                name -> Optional.ofNullable(properties.get(name))), InstantSource.system(), Optional.empty());
        CountingStore store = new CountingStore(new PostgresStoreProvider().create(context));
        return new Store("postgres", new StoreLimiter(store, monitor, metrics), store::probe, monitor, () -> {
            context.close();
            store.close();
        }, store::roundTrips);
    }

    /**
     * The in-memory store's clock as the runtime gives it (ClockProducer): {@link ElapsedTimeClock}, the startup
     * instant plus {@code System.nanoTime()}'s elapsed time, which the store reads as it is (it cannot go back, so
     * no {@code ForwardOnlyClock} around it). Measured on the 2-core benchmark machine (thread CPU time per read):
     * 26 ns, {@code System.currentTimeMillis()} 27 ns, {@code ForwardOnlyClock} over {@code InstantSource.system()}
     * 28 ns, {@code InstantSource.system().instant()} 35 ns: every read is one clock_gettime.
     */
    static InstantSource memoryClock() {
        return ElapsedTimeClock.startingNow();
    }

    /** The metrics an application on Quarkus reports to (Micrometer), behind the runtime's switch. */
    static RateLimiterMetrics metrics() {
        MetricsSwitch metrics = new MetricsSwitch();
        metrics.connect(BenchMetrics.micrometer());
        return metrics;
    }

    /**
     * The decision as {@code RateLimitDecider.decide} makes it, over the chain the runtime assembles: the
     * bucket's outage policy (with the in-memory fallback) around the breaker around the store for a shared
     * store, the outage policy around the in-memory limiter for {@code MEMORY}.
     */
    static final class Decision implements AutoCloseable {
        /** {@code ratelimiter.near-limit.percent}'s default, as the decider applies it. */
        private static final int NEAR_LIMIT_PERCENT = 20;

        private final CounterKeyHasher keys;
        private final RateLimiterMetrics metrics;
        private final Limiter limiter;
        private final AutoCloseable resources;
        private final Consumer<RateLimitDenied> denials;
        private final LongSupplier storeCalls;
        private final LongSupplier roundTrips;
        private final OutageStatistics outages;
        // As an application without lists and without OpenTelemetry tracing has them.
        private final KeyListsByBucket lists = new KeyListsByBucket(java.util.Map.of(), true);
        private final DecisionTracer tracer = DecisionTracer.NONE;

        private Decision(CounterKeyHasher keys, RateLimiterMetrics metrics, Limiter limiter, AutoCloseable resources,
                         LongSupplier storeCalls, LongSupplier roundTrips, OutageStatistics outages) {
            this.roundTrips = roundTrips;
            this.outages = outages;
            this.keys = keys;
            this.metrics = metrics;
            this.limiter = limiter;
            this.resources = resources;
            this.storeCalls = storeCalls;
            this.denials = denied -> { }; // an event nobody observes, as in an application without observers
        }

        /** In memory: {@code maxKeys} live counters per bucket. */
        static Decision memory(List<Bucket> buckets, int maxKeys) {
            RateLimiterMetrics metrics = metrics();
            metrics.register(buckets, java.util.Map.of(), "memory", () -> false);
            OutageStatistics outages = new OutageStatistics();
            // As the runtime builds it: the blocks' limiter on top, with no bucket blocked (as most applications)
            BlockLimiter limiter = new BlockLimiter(new OutagePolicyLimiter(new MemoryRateLimiter(memoryClock(),
                    maxKeys), Optional.empty(), new CompositeOutageListener(List.of(outages, metrics))),
                    java.util.Map.of(), new DecisionMarks());
            return new Decision(CounterKeyHasher.inProcess(new KeyHasher(Optional.of(SECRET))), metrics, limiter, () -> { },
                    () -> 0, () -> 0, outages);
        }

        /** Over a shared store built with {@code metrics} (see {@link #metrics()}), with the default breaker. */
        static Decision shared(List<Bucket> buckets, Store store, RateLimiterMetrics metrics) {
            return shared(buckets, store, metrics, BreakerSettings.DEFAULTS);
        }

        /** The same with the breaker {@code breaker} (the smoke's outage section: short back-offs). */
        static Decision shared(List<Bucket> buckets, Store store, RateLimiterMetrics metrics,
                               BreakerSettings breaker) {
            return shared(buckets, store, metrics, breaker, Map.of());
        }

        /**
         * Over a shared store with the default breaker, with quota leases for the buckets {@code leases} names
         * ({@code quota-lease-percent}; empty: none), swept as the runtime sweeps them and given back on
         * {@link #close()}.
         */
        static Decision shared(List<Bucket> buckets, Store store, RateLimiterMetrics metrics,
                               Map<String, QuotaLeaseSettings> leases) {
            return shared(buckets, store, metrics, BreakerSettings.DEFAULTS, leases);
        }

        private static Decision shared(List<Bucket> buckets, Store store, RateLimiterMetrics metrics,
                                       BreakerSettings breaker, Map<String, QuotaLeaseSettings> leases) {
            metrics.register(buckets, java.util.Map.of(), store.backend(),
                    () -> store.monitor().status().state() == BackendState.DEGRADED);
            CountingLimiter counted = new CountingLimiter(store.limiter());
            OutageStatistics outages = new OutageStatistics();
            // As the runtime builds it with the defaults (breaker 3 / 1 s / 30 s / 3 unless given another), refusals
            // kept for 1 s.
            SharedStoreChain chain = SharedStoreChain.of(counted, store.probe(), store.monitor(),
                    InstantSource.system(), new MemoryRateLimiter(InstantSource.system(), 100_000),
                    new CompositeOutageListener(List.of(outages, metrics)), breaker,
                    new DenyCacheSettings(Duration.ofSeconds(1), 100_000), metrics, leases);
            metrics.registerQuotaLeases(buckets.stream().filter(b -> leases.containsKey(b.name())).toList());
            // As LimiterAssembly starts and stops them: swept every half of the shortest idle; on close the sweep
            // stops, then the leases' unused parts are given back, before the breaker and the store close.
            Optional<PeriodicSweeper> sweeper = chain.quotaLeases()
                    .map(quota -> new PeriodicSweeper(quota, quota.shortestIdle().dividedBy(2)));
            return new Decision(CounterKeyHasher.shared(new KeyHasher(Optional.of(SECRET))), metrics,
                    new BlockLimiter(chain.limiter(), java.util.Map.of(), new DecisionMarks()), () -> {
                sweeper.ifPresent(PeriodicSweeper::close);
                chain.quotaLeases().ifPresent(QuotaLeaseLimiter::close);
                chain.breaker().close();
                store.close();
            }, counted::calls, store.roundTrips(), outages);
        }

        /** The decisions of {@code bucket} its outage policy's fallback made so far. */
        long fallbacks(Bucket bucket) {
            return outages.fallbacks(bucket.name());
        }

        /** Round trips the shared store made so far, each carrying one decision or several (0 in memory). */
        long roundTrips() {
            return roundTrips.getAsLong();
        }

        /** Calls that reached the shared store's limiter so far (0 in memory). */
        long storeCalls() {
            return storeCalls.getAsLong();
        }

        Verdict decide(Bucket bucket, CharSequence rawKey, KeyNormalization normalization) {
            String normalized = KeyNormalizer.normalize(rawKey, normalization);
            // the decider asks the bucket's allow and deny lists first (none here, as in most applications)
            if (lists.of(bucket.name()).listing(normalized, normalization) == KeyLists.Listing.DENIED) {
                return Verdict.denyListed(bucket.limits().get(bucket.limits().size() - 1).window());
            }
            String key = keys.counterKey(KeyNamespace.APPLICATION, normalized);
            Verdict verdict = limiter.consume(bucket, key);
            metrics.decision(bucket, verdict.outcome());
            if (tracer != DecisionTracer.NONE) { // as the decider asks; never true here
                tracer.decided(bucket, verdict.isAllowed() ? DecisionTracer.ALLOWED : DecisionTracer.REFUSED, verdict,
                        false);
            }
            if (verdict.outcome() == Verdict.Outcome.DENIED) {
                denials.accept(new RateLimitDenied(bucket, keys.eventKey(KeyNamespace.APPLICATION, normalized, key),
                        verdict));
            } else if (NearLimit.near(bucket, verdict, NEAR_LIMIT_PERCENT)) {
                metrics.nearLimit(bucket); // the event's crossing is one call per window: not on this path
            }
            return verdict;
        }

        /**
         * A call whose cost is settled after it ran, as the interceptor and {@code RateLimitDecider.settle} make it
         * (docs/guide.md#costs-settled-after-the-call): the decision at the reservation of 1, then the difference
         * from {@code settled} sent down the chain as a refund (a debit above 1), and the settlement's metrics.
         */
        Verdict settled(Bucket bucket, CharSequence rawKey, KeyNormalization normalization, long settled) {
            String normalized = KeyNormalizer.normalize(rawKey, normalization);
            String key = keys.counterKey(KeyNamespace.APPLICATION, normalized);
            Verdict verdict = decide(bucket, rawKey, normalization);
            if (verdict.isAllowed()) {
                Optional<StoreRefund> settlement = Refunds.settlement(bucket, key, 1, settled, verdict, 0);
                boolean given = settlement.isEmpty() || limiter.refund(List.of(settlement.get()));
                metrics.settlement(bucket, settled, given);
            }
            return verdict;
        }

        @Override
        public void close() throws Exception {
            resources.close();
        }
    }

    /** A key as the decider would hand it to a store: an application's, hashed (43 characters), never in clear. */
    static String hashedKey(String raw) {
        return HASHER.hash(KeyNamespace.APPLICATION, raw);
    }
}
