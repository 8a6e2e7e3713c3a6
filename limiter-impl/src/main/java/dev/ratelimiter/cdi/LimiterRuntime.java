package dev.ratelimiter.cdi;

import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.core.Backend;
import dev.ratelimiter.core.BackendState;
import dev.ratelimiter.core.BackendStatus;
import dev.ratelimiter.core.ConfigurationException;
import dev.ratelimiter.core.DisabledRateLimiter;
import dev.ratelimiter.core.KeyHasher;
import dev.ratelimiter.core.LimiterSettings;
import dev.ratelimiter.core.MemoryRateLimiter;
import dev.ratelimiter.core.OutagePolicyLimiter;
import dev.ratelimiter.core.OutageStatistics;
import dev.ratelimiter.core.PeriodicSweeper;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;

import java.time.InstantSource;
import java.util.List;
import java.util.Optional;

/**
 * Builds the limiter chain and the key hasher from the settings once, at startup, owns what it started (the
 * sweeper), and closes it when the application stops. Produces the {@link RateLimiter} bean that applications may inject: the backend wrapped in
 * the outage policies.
 */
@ApplicationScoped
public class LimiterRuntime {

    private static final System.Logger LOG = System.getLogger(LimiterRuntime.class.getName());

    @Inject
    LimiterConfiguration configuration;

    @Inject
    InstantSource clock;

    private RateLimiter limiter;
    private KeyHasher hasher;
    private OutageStatistics outages;
    private PeriodicSweeper sweeper;
    private BackendStatus status;

    @PostConstruct
    void start() {
        LimiterSettings settings = configuration.settings();
        hasher = new KeyHasher(settings.keySecret());
        if (!hasher.keyed()) {
            LOG.log(System.Logger.Level.WARNING, "ratelimiter.key-secret is not set: keys are hashed with plain "
                    + "SHA-256, which can be reversed by guessing for short logins and IPv4 addresses. Set the "
                    + "same secret on every replica.");
        }
        outages = new OutageStatistics();
        status = new BackendStatus(settings.backend(), BackendState.OK, clock.instant(), Optional.empty());
        if (!settings.enabled()) {
            LOG.log(System.Logger.Level.WARNING, "ratelimiter.enabled=false: every attempt is allowed and "
                    + "nothing is counted");
            limiter = new DisabledRateLimiter();
            return;
        }
        if (settings.backend() != Backend.MEMORY) {
            throw new ConfigurationException(List.of("ratelimiter.backend: '" + settings.backend().configName()
                    + "' is not available in this version of the library; use memory"));
        }
        MemoryRateLimiter memory = new MemoryRateLimiter(clock, settings.memoryMaxKeys());
        sweeper = new PeriodicSweeper(memory, settings.memorySweepInterval());
        limiter = new OutagePolicyLimiter(memory, Optional.empty(), outages);
    }

    @PreDestroy
    void stop() {
        if (sweeper != null) {
            sweeper.close();
        }
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

    /** Hashes normalized keys before they are counted. */
    KeyHasher hasher() {
        return hasher;
    }

    /** Attempts answered by an outage policy, per bucket. */
    public OutageStatistics outages() {
        return outages;
    }

    /** The backend's state for the readiness check. */
    public BackendStatus status() {
        return status;
    }
}
