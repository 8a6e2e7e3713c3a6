package dev.ratelimiter.cdi;

import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.RateLimiterStateChanged;
import dev.ratelimiter.core.Backend;
import dev.ratelimiter.core.BackendMonitor;
import dev.ratelimiter.core.BackendState;
import dev.ratelimiter.core.BackendStatus;
import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.core.DisabledRateLimiter;
import dev.ratelimiter.core.CounterKeys;
import dev.ratelimiter.core.KeyHasher;
import dev.ratelimiter.core.LimiterSettings;
import dev.ratelimiter.core.MemoryRateLimiter;
import dev.ratelimiter.core.MetricsSwitch;
import dev.ratelimiter.core.OutageListeners;
import dev.ratelimiter.core.OutagePolicyLimiter;
import dev.ratelimiter.core.OutageStatistics;
import dev.ratelimiter.core.PeriodicSweeper;
import dev.ratelimiter.core.RateLimiterMetrics;
import dev.ratelimiter.core.ShadowMode;
import dev.ratelimiter.core.SharedStoreChain;
import dev.ratelimiter.core.SubtreeConfig;
import dev.ratelimiter.metrics.MetricsRecorders;
import dev.ratelimiter.postgres.PostgresStoreProvider;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.valkey.ValkeyBackend;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;

import javax.sql.DataSource;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Builds the limiter chain, the key hasher and the metrics adapter from the settings once, at startup; owns what
 * it started (sweeper, circuit breaker, client pool) and closes it when the application stops. Produces the
 * {@link RateLimiter} bean that applications may inject: the backend wrapped in the outage policies.
 *
 * <p>The chain: in memory, {@code OutagePolicyLimiter(MemoryRateLimiter)}; with Valkey or PostgreSQL,
 * {@code OutagePolicyLimiter(DenyCacheLimiter(CircuitBreakerLimiter(store)), fallback: MemoryRateLimiter)} (the
 * deny cache only when {@code ratelimiter.deny-cache.max-age} is not 0), and for PostgreSQL a sweeper on the
 * server's managed scheduler where it has one.
 */
@ApplicationScoped
public class LimiterRuntime {

    private static final System.Logger LOG = System.getLogger(LimiterRuntime.class.getName());

    @Inject
    LimiterConfiguration configuration;

    @Inject
    InstantSource clock;

    @Inject
    Config config; // a store's own subtree (ratelimiter.<name>.*), read by its provider

    @Inject
    Event<RateLimiterStateChanged> stateChanges;

    @Inject
    Instance<Object> beans; // typed Object: the metrics registries' classes may be absent

    // Not read here: the PostgreSQL store finds its DataSource through CdiStoreContext.bean. This @Any injection
    // point keeps every DataSource bean, also a named one only the configuration refers to (Quarkus removes beans
    // no injection point can reach).
    @Inject
    @Any
    Instance<DataSource> dataSources;

    private RateLimiter limiter;
    private CounterKeys keys;
    private final MetricsSwitch metrics = new MetricsSwitch();
    private boolean metricsConnected; // guarded by this
    private OutageStatistics outages;
    private ShadowMode shadow;
    private BackendMonitor monitor;
    private final List<AutoCloseable> resources = new ArrayList<>();

    @PostConstruct
    void start() {
        LimiterSettings settings = configuration.settings();
        KeyHasher hasher = new KeyHasher(settings.keySecret());
        // In memory the counted key never leaves the process: a faster keyed hash; a shared store's replicas must
        // agree on each key (docs/architecture.md, "The path of a request").
        keys = settings.backend() == Backend.MEMORY ? CounterKeys.inProcess(hasher) : CounterKeys.shared(hasher);
        if (!hasher.keyed()) {
            LOG.log(System.Logger.Level.WARNING, "ratelimiter.key-secret is not set: keys are hashed with plain "
                    + "SHA-256, which can be reversed by guessing for short logins and IPv4 addresses. Set the "
                    + "same secret on every replica.");
        }
        outages = new OutageStatistics();
        shadow = new ShadowMode(settings.shadowBuckets(), clock, settings.memoryMaxKeys(), metrics);
        monitor = new BackendMonitor(settings.backend(), clock, metrics);
        monitor.onChange(status -> stateChanges.fire(new RateLimiterStateChanged(status.backend().configName(),
                status.state() == BackendState.DEGRADED, status.since(), status.lastError())));
        if (!settings.enabled()) {
            LOG.log(System.Logger.Level.WARNING, "ratelimiter.enabled=false: every attempt is allowed and "
                    + "nothing is counted");
            limiter = new DisabledRateLimiter();
            return;
        }
        MemoryRateLimiter memory = new MemoryRateLimiter(clock, settings.memoryMaxKeys());
        resources.add(new PeriodicSweeper(memory, settings.memorySweepInterval()));
        if (!settings.shadowBuckets().isEmpty()) {
            LOG.log(System.Logger.Level.INFO, "Rate limiter: buckets in shadow mode (counted, never refused): {0}",
                    String.join(", ", settings.shadowBuckets()));
            resources.add(new PeriodicSweeper(shadow, settings.memorySweepInterval()));
        }
        OutageListeners listeners = new OutageListeners(List.of(outages, metrics));
        switch (settings.backend()) {
            case MEMORY:
                limiter = new OutagePolicyLimiter(memory, Optional.empty(), listeners);
                break;
            case VALKEY:
                ValkeyBackend valkey;
                try {
                    valkey = ValkeyBackend.start(settings.valkey(), monitor, metrics);
                } catch (ConfigurationException e) {
                    stop(); // the sweeper started above
                    throw e;
                }
                resources.add(valkey);
                limiter = sharedStore(valkey.chain(monitor, clock, memory, listeners, settings.breaker(),
                        settings.denyCache(), metrics));
                break;
            case POSTGRES:
            default:
                CdiStoreContext context = new CdiStoreContext(
                        new SubtreeConfig("postgres", new ConfigLookup(config)), clock, beans);
                RateLimitStore store;
                try {
                    store = new PostgresStoreProvider().create(context);
                } catch (RuntimeException e) {
                    context.close();
                    stop(); // the sweeper started above
                    throw e;
                }
                resources.add(store);
                limiter = sharedStore(SharedStoreChain.of(store, monitor, clock, memory, listeners,
                        settings.breaker(), settings.denyCache(), metrics));
                resources.add(0, context); // its sweeps stop first, before the breaker and the store's pool
                break;
        }
    }

    /**
     * Logs that the limiter is ready: called by {@link StartupValidator} once every check has passed, so the line
     * never precedes a failed start.
     */
    void announceReady() {
        LimiterSettings settings = configuration.settings();
        if (!settings.enabled()) {
            return; // start() said so already
        }
        LOG.log(System.Logger.Level.INFO, "Rate limiter ready: backend {0}, {1} buckets",
                settings.backend().configName(), String.valueOf(settings.buckets().size()));
    }

    /**
     * Keeps the chain's breaker to close first, so the probe stops before the store's pool closes, and sweeps its
     * ended refusals with the in-memory counters.
     */
    private RateLimiter sharedStore(SharedStoreChain chain) {
        resources.add(0, chain.breaker());
        chain.denyCache().ifPresent(refusals -> resources.add(new PeriodicSweeper(refusals,
                configuration.settings().memorySweepInterval())));
        return chain.limiter();
    }

    /**
     * Connects the metrics adapter that {@code ratelimiter.metrics.system} chooses among those the server offers
     * and registers every series; once, at the CDI {@code Startup} event (see {@link MetricsSwitch} for why not
     * earlier). Throws {@link ConfigurationException} when the chosen system is absent.
     */
    synchronized void connectMetrics() {
        if (metricsConnected) {
            return;
        }
        metricsConnected = true;
        RateLimiterMetrics adapter = MetricsRecorders.choose(configuration.settings().metricsSystem(), beans);
        adapter.register(configuration.settings().buckets().values(), configuration.settings().backend(),
                () -> monitor.status().state() == BackendState.DEGRADED);
        metrics.connect(adapter);
    }

    @PreDestroy
    void stop() {
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, "closing " + resource.getClass().getSimpleName() + " failed", e);
            }
        }
        resources.clear();
    }

    /** The backend wrapped in the outage policies (or the kill switch's limiter). */
    @Produces
    @ApplicationScoped
    RateLimiter rateLimiter() {
        return limiter;
    }

    /** The chain used by the interceptor, the filter and the facade (no proxy in between). */
    RateLimiter limiter() {
        return limiter;
    }

    /** Hashes normalized keys before they are counted, and for the denial event. */
    CounterKeys keys() {
        return keys;
    }

    /** The buckets in shadow mode, which turns their refusals into calls that go on. */
    ShadowMode shadow() {
        return shadow;
    }

    /** Where decisions are reported. */
    RateLimiterMetrics metrics() {
        return metrics;
    }

    /** Attempts answered by an outage policy, per bucket. */
    public OutageStatistics outages() {
        return outages;
    }

    /** The backend's state for the readiness check. */
    public BackendStatus status() {
        return monitor.status();
    }
}
