package dev.ratelimiter.internal.cdi.runtime;

import dev.ratelimiter.RateLimits;
import dev.ratelimiter.internal.cdi.call.PlanResolvers;
import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.cdi.interceptor.RateLimitedMethodCache;
import dev.ratelimiter.internal.core.chain.BlockLimiter;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import dev.ratelimiter.internal.core.settings.SettingsUpdate;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Reloads the buckets' settings while the application runs (docs/live-limits.md): on {@link RateLimits#reload()},
 * and every {@code ratelimiter.reload.interval} on a daemon thread of its own. After a change, the methods' bindings
 * and the changed buckets' planners are resolved anew at their next call, and shadow mode follows the new modes.
 * The problems that kept settings out are logged when they change (not at every interval), and kept for the
 * readiness check and the metrics until a reload finds none.
 */
@ApplicationScoped
public class SettingsReloader {

    private static final System.Logger LOG = System.getLogger(SettingsReloader.class.getName());

    @Inject
    LimiterConfiguration configuration;

    @Inject
    LimiterRuntime runtime;

    @Inject
    RateLimitedMethodCache methods;

    @Inject
    PlanResolvers plans;

    private volatile Map<String, SettingsUpdate.StaticCost> costs = Map.of();
    private volatile List<String> rejected = List.of();
    private ScheduledExecutorService scheduler;

    /**
     * Starts the periodic reloads, if {@code ratelimiter.reload.interval} asks for them; called once the startup's
     * checks have passed.
     *
     * @param costs each bucket's largest static cost, which a reload must keep allowing
     */
    public synchronized void start(Map<String, SettingsUpdate.StaticCost> costs) {
        this.costs = Map.copyOf(costs);
        LimiterSettings settings = configuration.settings();
        if (settings.reload().periodic() && scheduler == null) {
            long millis = settings.reload().interval().toMillis();
            scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
                Thread thread = new Thread(task, "rate-limiter-reload");
                thread.setDaemon(true);
                return thread;
            });
            scheduler.scheduleWithFixedDelay(this::reloadQuietly, millis, millis, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Reads the settings again and applies what passes (see {@link RateLimits#reload()}).
     *
     * @return what changed and what was kept out
     */
    public synchronized RateLimits.Reload reload() {
        SettingsUpdate update = configuration.reload(costs, runtime.algorithms());
        if (!update.changed().isEmpty()) {
            methods.forget();
            plans.forget(update.changed());
            runtime.path().assembly().shadow().buckets(update.settings().shadowBuckets());
            runtime.path().assembly().lists().update(update.settings().lists());
            if (runtime.path().assembly().limiter() instanceof BlockLimiter blocks) {
                blocks.update(update.settings().blocks());
            }
            LOG.log(System.Logger.Level.INFO, "Rate limiter: settings reloaded; changed: "
                    + String.join(", ", update.changed().stream().sorted().toList()));
        }
        if (!update.rejected().equals(rejected)) {
            if (update.rejected().isEmpty()) {
                LOG.log(System.Logger.Level.INFO, "Rate limiter: the settings reload kept nothing out any more");
            }
            for (String problem : update.rejected()) {
                LOG.log(System.Logger.Level.WARNING, "Rate limiter: settings reload kept out: " + problem);
            }
        }
        rejected = update.rejected();
        return new RateLimits.Reload(new java.util.TreeSet<>(update.changed()), update.rejected());
    }

    /** {@return the problems the last reload kept out, each naming its property; empty before the first} */
    public List<String> rejected() {
        return rejected;
    }

    private void reloadQuietly() {
        try {
            reload();
        } catch (RuntimeException e) { // a reload on the timer must not stop the next one
            LOG.log(System.Logger.Level.WARNING, "Rate limiter: settings reload failed: " + e);
        }
    }

    @PreDestroy
    synchronized void stop() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }
}
