package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.contract.ManualClock;
import dev.ratelimiter.internal.cdi.beans.BucketHandles;
import dev.ratelimiter.internal.cdi.beans.ClockProducer;
import dev.ratelimiter.internal.cdi.beans.DeciderProducer;
import dev.ratelimiter.internal.cdi.beans.DecidingRateLimiter;
import dev.ratelimiter.internal.cdi.beans.RateLimitsFacade;
import dev.ratelimiter.internal.cdi.call.CostResolvers;
import dev.ratelimiter.internal.cdi.call.KeyResolverInvoker;
import dev.ratelimiter.internal.cdi.call.PlanResolvers;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.cdi.interceptor.CallEnds;
import dev.ratelimiter.internal.cdi.interceptor.CallKeys;
import dev.ratelimiter.internal.cdi.interceptor.UpstreamHolds;
import dev.ratelimiter.internal.cdi.interceptor.WaitingCalls;
import dev.ratelimiter.internal.cdi.interceptor.EventLoopOffload;
import dev.ratelimiter.internal.cdi.interceptor.EventLoopWarner;
import dev.ratelimiter.internal.cdi.interceptor.NestedCalls;
import dev.ratelimiter.internal.cdi.interceptor.RateLimitedInterceptor;
import dev.ratelimiter.internal.cdi.interceptor.RateLimitedMethodCache;
import dev.ratelimiter.internal.cdi.interceptor.SettledCalls;
import dev.ratelimiter.internal.cdi.interceptor.UnfilteredRequestWarner;
import dev.ratelimiter.internal.cdi.runtime.LimiterRuntime;
import dev.ratelimiter.internal.cdi.runtime.MetricsConnection;
import dev.ratelimiter.internal.cdi.runtime.SettingsReloader;
import dev.ratelimiter.internal.cdi.startup.StartupValidator;
import io.smallrye.config.inject.ConfigExtension;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Produces;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;

/**
 * Boots the library's CDI beans in Weld SE with SmallRye Config, the test's properties as system properties
 * (above the library's defaults), and a manual clock in place of the system clock.
 */
public final class CdiContainer implements AutoCloseable {

    static final ManualClock CLOCK = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));

    /** Replaces the library's clock, as an application's test would. */
    @ApplicationScoped
    @Alternative
    @Priority(1)
    static class TestClock {
        @Produces
        InstantSource clock() {
            return CLOCK;
        }
    }

    private final Map<String, String> properties;
    private final WeldContainer container;

    private CdiContainer(Map<String, String> properties, Class<?>... beans) {
        this.properties = properties;
        properties.forEach(System::setProperty);
        try {
            this.container = new Weld("test-" + System.nanoTime())
                    .disableDiscovery()
                    .addExtension(new ConfigExtension())
                    .addBeanClasses(LimiterConfiguration.class, ClockProducer.class, TestClock.class,
                            LimiterRuntime.class, MetricsConnection.class, DecidingRateLimiter.class,
                            RequestIdentity.class,
                            DeciderProducer.class, RateLimitsFacade.class, BucketHandles.class, RateLimitedMethodCache.class,
                            KeyResolverInvoker.class, PlanResolvers.class, SettingsReloader.class, NestedCalls.class,
                            EventLoopWarner.class, EventLoopOffload.class, UnfilteredRequestWarner.class,
                            StartupValidator.class, RateLimitedInterceptor.class, CallEnds.class, WaitingCalls.class,
                            UpstreamHolds.class, CallKeys.class,
                            SettledCalls.class, CostResolvers.class)
                    .addBeanClasses(beans)
                    .initialize();
        } catch (RuntimeException e) {
            clearProperties();
            throw e;
        }
    }

    public static CdiContainer start(Map<String, String> properties, Class<?>... beans) {
        return new CdiContainer(properties, beans);
    }

    /** The container as {@code CDI.current()} would return it. */
    jakarta.enterprise.inject.spi.CDI<Object> cdi() {
        return container;
    }

    public <T> T select(Class<T> type, java.lang.annotation.Annotation... qualifiers) {
        return container.select(type, qualifiers).get();
    }

    @Override
    public void close() {
        try {
            container.close();
        } finally {
            clearProperties();
        }
    }

    private void clearProperties() {
        properties.keySet().forEach(System::clearProperty);
        // SmallRye caches the configuration per class loader: forget it, so the next container reads anew.
        ConfigProviderResolver.instance().releaseConfig(ConfigProvider.getConfig());
    }
}
