package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.jaxrs.RateLimiterFeature;

import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.FeatureContext;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimiterFeatureTest {

    /** A feature context that records registrations, with {@code present} already registered. */
    private static FeatureContext context(Set<Class<?>> present, List<Class<?>> registered) {
        Configuration configuration = (Configuration) Proxy.newProxyInstance(loader(),
                new Class<?>[] {Configuration.class}, (proxy, method, args) -> {
                    if (method.getName().equals("isRegistered") && args[0] instanceof Class<?> type) {
                        return present.contains(type) || registered.contains(type);
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        return (FeatureContext) Proxy.newProxyInstance(loader(), new Class<?>[] {FeatureContext.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getConfiguration" -> configuration;
                    case "register" -> {
                        registered.add((Class<?>) args[0]);
                        yield proxy;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static ClassLoader loader() {
        return RateLimiterFeatureTest.class.getClassLoader();
    }

    @Test
    @DisplayName("registers the global filter, the headers and refund filters and the three refusal mappers (429, "
            + "503, 400)")
    void registersAllProviders() {
        List<Class<?>> registered = new ArrayList<>();
        assertThat(new RateLimiterFeature().configure(context(Set.of(), registered))).isTrue();
        assertThat(registered).containsExactlyInAnyOrder(GlobalRateLimitFilter.class, RateLimitHeadersFilter.class,
                RefundResponseFilter.class, SettlementResponseFilter.class, RateLimitExceededMapper.class,
                RateLimiterUnavailableMapper.class, RateLimitKeyMissingMapper.class);
    }

    @Test
    @DisplayName("a provider already registered (found by scanning) is not registered again")
    void skipsRegistered() {
        List<Class<?>> registered = new ArrayList<>();
        new RateLimiterFeature().configure(context(Set.of(GlobalRateLimitFilter.class), registered));
        assertThat(registered).doesNotContain(GlobalRateLimitFilter.class).hasSize(6);
    }
}
