package dev.ratelimiter.internal.health;

import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.cdi.runtime.LimiterRuntime;
import dev.ratelimiter.internal.cdi.runtime.SettingsReloader;
import dev.ratelimiter.internal.core.monitor.BackendState;
import dev.ratelimiter.internal.core.monitor.BackendStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The readiness check {@code rate-limiter} (MicroProfile Health 4): UP while the backend answers, and UP too
 * while degraded, since an outage of the shared store must not take every replica out of the load balancer;
 * DOWN when degraded only with {@code ratelimiter.health.down-when-degraded=true}.
 *
 * <p>Data: {@code backend} ({@code memory}, {@code valkey}, {@code postgres} or another provider's name), {@code state} ({@code ok} or
 * {@code degraded}), {@code since} (ISO-8601 instant of the last change), {@code fallbacks} (attempts decided by
 * the per-process fallback since start) and, while degraded, {@code lastError} (the latest failure: the one that
 * opened the breaker, then each failed probe's; exception type and message, without hosts, users or passwords);
 * with a Valkey cluster, while a master's breaker is open, {@code failingNodes} (those masters' {@code host:port},
 * comma-separated, sorted); when a bucket is in shadow mode, {@code shadowBuckets} (their names, comma-separated,
 * sorted: counted, never refused; docs/guide.md#shadow-mode); while a reload keeps settings out,
 * {@code rejectedSettings} (its problems, each naming its property, separated by {@code "; "}; docs/live-limits.md).
 * A kept-out setting does not turn readiness DOWN: the replica goes on under the settings it had.
 */
@Readiness
@ApplicationScoped
public class RateLimiterReadinessCheck implements HealthCheck {

    /** The check's name. */
    public static final String NAME = "rate-limiter";

    @Inject
    LimiterRuntime runtime;

    @Inject
    LimiterConfiguration configuration;

    @Inject
    SettingsReloader reloader;

    @Override
    public HealthCheckResponse call() {
        BackendStatus status = runtime.status();
        boolean down = status.state() == BackendState.DEGRADED
                && configuration.settings().healthDownWhenDegraded();
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("backend", status.backend());
        data.put("state", status.state().label());
        data.put("since", status.since().toString());
        data.put("fallbacks", runtime.outages().totalFallbacks());
        status.lastError().ifPresent(error -> data.put("lastError", error));
        if (!status.failingParts().isEmpty()) {
            data.put("failingNodes", String.join(",", status.failingParts()));
        }
        List<String> rejected = reloader.rejected();
        if (!rejected.isEmpty()) {
            data.put("rejectedSettings", String.join("; ", rejected));
        }
        if (!configuration.settings().shadowBuckets().isEmpty()) {
            data.put("shadowBuckets", String.join(",", configuration.settings().shadowBuckets()));
        }
        // The constructor, not HealthCheckResponse.named(...): the builder needs the server's SPI provider.
        return new HealthCheckResponse(NAME, down ? HealthCheckResponse.Status.DOWN : HealthCheckResponse.Status.UP,
                Optional.of(data));
    }
}
