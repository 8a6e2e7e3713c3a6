package dev.ratelimiter.internal.cdi.runtime;

import dev.ratelimiter.internal.cdi.startup.StartupValidator;
import dev.ratelimiter.internal.core.monitor.DecisionTracer;
import dev.ratelimiter.internal.core.monitor.MetricsSwitch;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import dev.ratelimiter.internal.metrics.MetricsRecorders;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * The metrics port the limiter chain reports to, and the one startup step that connects it to the adapter
 * {@code ratelimiter.metrics.system} chooses among those the server offers (docs/operations.md#metrics). The chain is
 * built with the port from the start; the adapter is connected only at the CDI {@code Startup} event, by
 * {@link StartupValidator}, because the chain may be built earlier, on a request thread (a readiness probe during
 * deployment), where Payara cannot yet resolve its {@code MetricRegistry}. Events before then are not reported.
 */
@ApplicationScoped
public class MetricsConnection {

    @Inject
    Instance<Object> beans; // typed Object: the metrics registries' classes may be absent

    @Inject
    SettingsReloader reloader;

    private final MetricsSwitch port = new MetricsSwitch();
    private boolean connected; // guarded by this

    /** What the chain reports to: nothing until {@link #connect}, then the chosen adapter. */
    RateLimiterMetrics port() {
        return port;
    }

    /**
     * The trace port: the OpenTelemetry span adapter when the application sees the OpenTelemetry API (it finds the
     * request's span itself, so it needs neither a bean nor the Startup event), else none
     * (docs/operations.md#decisions-on-the-trace).
     */
    DecisionTracer tracer() {
        return MetricsRecorders.tracer();
    }

    /**
     * Chooses the adapter, registers every series and starts forwarding to it; once, later calls do nothing.
     *
     * @param settings the buckets and their declared plans, the store's name and {@code ratelimiter.metrics.system}
     * @param degraded whether the store is degraded, read when scraped
     * @throws dev.ratelimiter.spi.ConfigurationException when the chosen system is absent
     */
    public synchronized void connect(LimiterSettings settings, BooleanSupplier degraded) {
        if (connected) {
            return;
        }
        connected = true;
        RateLimiterMetrics adapter = MetricsRecorders.choose(settings.metricsSystem(), beans);
        Map<String, Set<String>> plans = new HashMap<>();
        settings.plans().forEach((bucket, declared) -> plans.put(bucket, declared.plans().keySet()));
        adapter.register(settings.buckets().values(), plans, settings.backend(), degraded);
        adapter.registerQuotaLeases(settings.quotaLeases().keySet().stream().map(settings.buckets()::get)
                .filter(Objects::nonNull).toList());
        adapter.registerWaits(settings.buckets().values().stream().filter(bucket -> !bucket.maxWait().isZero()
                || settings.blocks().containsKey(bucket.name())
                && settings.blocks().get(bucket.name()).holdsForUpstream()).toList());
        adapter.rejectedSettings(() -> reloader.rejected().size());
        port.connect(adapter);
    }

    /**
     * Disconnects the adapter when the application stops, so no callback of a server-wide metrics library calls into
     * the stopped application (and holds its classes) after it.
     */
    @PreDestroy
    void disconnect() {
        port.close();
    }
}
