package dev.ratelimiter.internal.cdi.runtime;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimiterStateChanged;
import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.cdi.startup.StartupValidator;
import dev.ratelimiter.internal.core.chain.LimiterAssembly;
import dev.ratelimiter.internal.core.decision.DecisionPath;
import dev.ratelimiter.internal.core.decision.DecisionSource;
import dev.ratelimiter.internal.core.monitor.BackendStatus;
import dev.ratelimiter.internal.core.monitor.OutageStatistics;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import dev.ratelimiter.internal.core.settings.StoreProviderRegistry;
import dev.ratelimiter.internal.core.settings.SubtreeConfig;
import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.RateLimitStoreProvider;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The limiter in the server: builds the chain ({@link LimiterAssembly}) once, from the settings and the store that
 * {@code ratelimiter.backend} names, with what the server offers the store ({@link CdiStoreContext}), and closes
 * what it opened when the application stops. A store other than {@code memory} is built by its provider, found by
 * name among those on the class path ({@link StoreProviderRegistry}; docs/writing-a-store.md).
 *
 * <p>Built on first use: at the latest by {@link StartupValidator} at the CDI {@code Startup} event, so a store that
 * cannot work fails the deployment, but possibly earlier, on a request thread (a readiness probe during
 * deployment).
 */
@ApplicationScoped
public class LimiterRuntime implements DecisionSource {

    private static final System.Logger LOG = System.getLogger(LimiterRuntime.class.getName());

    @Inject
    LimiterConfiguration configuration;

    @Inject
    Config config;

    @Inject
    InstantSource clock;

    @Inject
    Event<RateLimiterStateChanged> stateChanges;

    @Inject
    MetricsConnection metrics;

    // Typed Object: a store's types may be absent. @Any: a store may ask for a bean with a qualifier of its own (a
    // named DataSource is @io.quarkus.agroal.DataSource("name") on Quarkus, not @Default), and Instance.select only
    // adds to the qualifiers of the injection point.
    @Inject
    @Any
    Instance<Object> beans;

    private volatile DecisionPath path; // the assembly and the metrics port, built together on first use
    private volatile boolean refunds = true; // whether the store gives counts back: memory does
    private volatile boolean debits = true; // whether it takes debits too, for costs settled after the call
    private volatile Set<Algorithm> algorithms = Set.of(Algorithm.values()); // memory decides all

    /**
     * Builds the chain if no call has yet; the deployment's startup step.
     *
     * @throws dev.ratelimiter.spi.ConfigurationException the settings or the store cannot work
     */
    public void start() {
        assembly();
    }

    private LimiterAssembly assembly() {
        return path().assembly();
    }

    /**
     * What one decision needs: the chain, the key hasher, shadow mode and the metrics port, fetched through one call
     * of this bean's client proxy. Each call of a proxy looks up the bean's context (on Payara a class-loader keyed
     * lookup of the container), so the decider asks once per decision rather than once per part
     * (docs/architecture.md#the-path-of-a-request). Built on first use.
     */
    @Override
    public DecisionPath path() {
        DecisionPath built = path;
        if (built == null) {
            synchronized (this) {
                built = path;
                if (built == null) {
                    LimiterSettings settings = configuration.settings();
                    failureTypes(settings);
                    warnings(settings);
                    RateLimiterMetrics port = metrics.port();
                    built = new DecisionPath(LimiterAssembly.assemble(settings, sharedStore(settings), clock, port,
                            new StateChangeEventBridge(stateChanges)), port, metrics.tracer());
                    path = built;
                }
            }
        }
        return built;
    }

    /** What an operator must see in the log as the limiter starts, under this class's logger name. */
    private static void warnings(LimiterSettings settings) {
        if (settings.keySecret().isEmpty() && settings.enabled()) {
            // What is hashed how depends on the store (docs/guide.md#keys-and-privacy): say what is true of this one
            if (settings.backend().equals(StoreProviderRegistry.MEMORY)) {
                LOG.log(System.Logger.Level.WARNING, "ratelimiter.key-secret is not set: the in-memory store counts "
                        + "under a keyed hash of its own (SipHash-2-4, a random key per process), but the key a "
                        + "RateLimitDenied event carries is plain SHA-256, which can be reversed by guessing for short "
                        + "logins and IPv4 addresses. Set it where those events are logged or sent on.");
            } else {
                LOG.log(System.Logger.Level.WARNING, "ratelimiter.key-secret is not set: keys reach the "
                        + settings.backend() + " store hashed with plain SHA-256, which can be reversed by guessing "
                        + "for short logins and IPv4 addresses. Set the same secret on every replica.");
            }
        }
        if (!settings.enabled()) {
            LOG.log(System.Logger.Level.WARNING, "ratelimiter.enabled=false: every attempt is allowed and "
                    + "nothing is counted");
        }
    }

    /** The store {@code ratelimiter.backend} names, built by its provider; empty in memory or when disabled. */
    private Optional<LimiterAssembly.SharedStore> sharedStore(LimiterSettings settings) {
        String name = settings.backend();
        if (!settings.enabled() || name.equals(StoreProviderRegistry.MEMORY)) {
            return Optional.empty();
        }
        RateLimitStoreProvider provider = StoreProviderRegistry.load().byName().get(name);
        if (provider == null) { // SettingsReader accepts only the names found, from the same class loader
            throw new IllegalStateException("no store provider named '" + name + "'");
        }
        unofferedAlgorithms(settings, provider);
        unofferedRefunds(settings, provider);
        refunds = provider.refunds();
        debits = provider.refunds() && provider.debits();
        algorithms = Set.copyOf(provider.algorithms());
        SubtreeConfig storeConfig = new SubtreeConfig(name, configuration.lookup());
        CdiStoreContext context = new CdiStoreContext(storeConfig, clock, beans);
        RateLimitStore store;
        try {
            store = provider.create(context);
        } catch (RuntimeException | Error e) {
            context.close(); // the sweeps it may have started
            throw e;
        }
        try {
            storeConfig.check(); // a problem the provider recorded but did not throw
        } catch (RuntimeException e) {
            context.close();
            store.close();
            throw e;
        }
        return Optional.of(LimiterAssembly.of(store, context));
    }

    /**
     * The algorithms the store decides ({@code RateLimitStoreProvider.algorithms()}): every one in memory. Known once
     * the chain is built; a reload keeps a bucket's settings if it asks for another (docs/live-limits.md).
     */
    public Set<Algorithm> algorithms() {
        path();
        return algorithms;
    }

    /** The library's clock: how long ago a call was decided, for a refund (docs/guide.md#counting-failures-only). */
    @Override
    public InstantSource clock() {
        return clock;
    }

    /**
     * Whether the store gives counts back ({@code RateLimitStoreProvider.refunds()}), so a method may count failures
     * only ({@code @RateLimited(count = FAILURES)}); the in-memory store does. Known once the chain is built.
     */
    public boolean refunds() {
        path();
        return refunds;
    }

    /**
     * Whether the store takes debits ({@code RateLimitStoreProvider.debits()}), so a method may settle its cost
     * after the call ({@code @RateLimited(settle = true)}); the in-memory store does. Known once the chain is built.
     */
    public boolean debits() {
        path();
        return debits;
    }

    /**
     * Fails the start for each bucket that counts failures only, or leases quota (its unused part goes back as a
     * refund), on a store that gives nothing back.
     */
    private static void unofferedRefunds(LimiterSettings settings, RateLimitStoreProvider provider) {
        if (provider.refunds()) {
            return;
        }
        List<String> problems = new ArrayList<>();
        settings.buckets().forEach((name, bucket) -> {
            if (settings.counting(bucket).failuresOnly()) {
                problems.add("ratelimiter.buckets." + name + ".count: bucket '" + name + "' counts failures only, "
                        + "but the store of ratelimiter.backend=" + provider.name() + " gives no counts back "
                        + "(docs/guide.md#counting-failures-only); set it to all, or choose memory, valkey or "
                        + "postgres");
            }
            if (settings.quotaLeases().containsKey(name)) {
                problems.add("ratelimiter.buckets." + name + ".quota-lease-percent: bucket '" + name + "' leases "
                        + "quota, whose unused part goes back to the store, but the store of ratelimiter.backend="
                        + provider.name() + " gives no counts back (docs/guide.md#quota-leases-for-hot-keys); remove "
                        + "it, or choose valkey or postgres");
            }
        });
        if (!problems.isEmpty()) {
            throw new ConfigurationException(problems);
        }
    }

    /**
     * Fails the start for a {@code failure-exceptions} entry that names no exception class the application can
     * load (a typo would otherwise make every call a success, and the bucket count nothing).
     */
    private static void failureTypes(LimiterSettings settings) {
        List<String> problems = new ArrayList<>();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        settings.buckets().forEach((name, bucket) -> {
            for (String type : settings.counting(bucket).exceptions()) {
                try {
                    if (!Throwable.class.isAssignableFrom(Class.forName(type, false, loader))) {
                        problems.add("ratelimiter.buckets." + name + ".failure-exceptions: " + type
                                + " is not an exception class");
                    }
                } catch (ClassNotFoundException | LinkageError e) {
                    problems.add("ratelimiter.buckets." + name + ".failure-exceptions: no class " + type
                            + " is visible to the application; name an exception class by its fully qualified name");
                }
            }
        });
        if (!problems.isEmpty()) {
            throw new ConfigurationException(problems);
        }
    }

    /**
     * Fails the start for each bucket on an algorithm the store does not decide, naming both properties, or of a
     * calendar window the store does not end at its period's boundary.
     */
    private static void unofferedAlgorithms(LimiterSettings settings, RateLimitStoreProvider provider) {
        List<String> problems = new ArrayList<>();
        settings.buckets().forEach((name, bucket) -> {
            if (bucket.isConcurrency() && !provider.algorithms().contains(Algorithm.CONCURRENCY)) {
                problems.add("ratelimiter.buckets." + name + ".concurrency: bucket '" + name + "' limits "
                        + "concurrency, which the store of ratelimiter.backend=" + provider.name() + " does not keep "
                        + "(its RateLimitStoreProvider.algorithms() lacks CONCURRENCY); remove the property, or use "
                        + "memory, valkey or postgres");
            } else if (!provider.algorithms().contains(bucket.algorithm())) {
                problems.add("ratelimiter.buckets." + name + ".algorithm: bucket '" + name + "' is a "
                        + bucket.algorithm().configName() + ", which the store of ratelimiter.backend="
                        + provider.name() + " does not decide (it decides " + provider.algorithms().stream()
                        .map(Algorithm::configName).sorted().toList() + "); choose one of those, or another "
                        + "store");
            }
            if (bucket.hasCalendarWindow() && !provider.calendarWindows()) {
                problems.add("ratelimiter.buckets." + name + ".window (or .limits): bucket '" + name
                        + "' has a calendar window ("
                        + bucket.limits().get(0).windowName() + "), which the store of ratelimiter.backend="
                        + provider.name() + " does not decide (RateLimitStoreProvider.calendarWindows() is false); "
                        + "give the window a length such as P30D, or use another store");
            }
        });
        if (!problems.isEmpty()) {
            throw new ConfigurationException(problems);
        }
    }

    /**
     * Logs that the limiter is ready: called by {@link StartupValidator} once every check has passed, so the line
     * never precedes a failed start.
     */
    public void announceReady() {
        LimiterSettings settings = configuration.settings();
        if (!settings.enabled()) {
            return; // the assembly said so already
        }
        LOG.log(System.Logger.Level.INFO, "Rate limiter ready: backend {0}, {1} buckets",
                settings.backend(), String.valueOf(settings.buckets().size()));
    }

    @PreDestroy
    void stop() {
        DecisionPath built = path;
        if (built != null) {
            built.assembly().shutdown().close();
        }
    }

    /** Attempts answered by an outage policy, per bucket. */
    public OutageStatistics outages() {
        return assembly().outages();
    }

    /** The store's state for the readiness check. */
    public BackendStatus status() {
        return assembly().monitor().status();
    }
}
