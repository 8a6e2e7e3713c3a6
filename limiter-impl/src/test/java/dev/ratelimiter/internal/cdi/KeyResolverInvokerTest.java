package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.internal.cdi.call.KeyResolverInvoker;
import dev.ratelimiter.internal.cdi.call.RequestAttributes;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import dev.ratelimiter.internal.core.decision.RawKey;
import dev.ratelimiter.internal.core.key.KeyNamespace;
import dev.ratelimiter.spi.ConfigurationException;
import jakarta.enterprise.context.control.RequestContextController;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Finding the resolvers {@code @RateLimited} and {@code ratelimiter.api.key-resolver} name, in Weld SE. */
class KeyResolverInvokerTest {

    private CdiContainer cdi;

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    private static Map<String, String> config(String... more) {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.buckets.search.limit", "2",
                "ratelimiter.buckets.search.window", "PT1M"));
        for (int i = 0; i < more.length; i += 2) {
            properties.put(more[i], more[i + 1]);
        }
        return properties;
    }

    @Test
    @DisplayName("a resolver type two beans have fails the deployment naming the method, the attribute and both beans")
    void ambiguousResolver() {
        assertThatThrownBy(() -> cdi = CdiContainer.start(config(), ResolverMisconfiguredBeans.Ambiguous.class,
                RegionKeys.Europe.class, RegionKeys.America.class))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("@RateLimited(bucket = \"search\") on "
                        + ResolverMisconfiguredBeans.Ambiguous.class.getName() + "#call(): resolver = "
                        + RegionKeys.class.getName() + ".class is ambiguous: it names the beans "
                        + RegionKeys.America.class.getName() + ", " + RegionKeys.Europe.class.getName());
    }

    @Test
    @DisplayName("a resolver name no bean has fails the deployment naming the method and the name")
    void unknownResolver() {
        assertThatThrownBy(() -> cdi = CdiContainer.start(config(), ResolverMisconfiguredBeans.Unknown.class))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("@RateLimited(bucket = \"search\") on "
                        + ResolverMisconfiguredBeans.Unknown.class.getName() + "#call(): resolverName = "
                        + "\"no-such-resolver\" names no RateLimitKeyResolver bean");
    }

    @Test
    @DisplayName("ratelimiter.api.key-resolver naming nothing fails the deployment naming the property")
    void unknownGlobalResolver() {
        assertThatThrownBy(() -> cdi = CdiContainer.start(config("ratelimiter.api.key-resolver", "tenant-hedaer"),
                TenantHeaderKeys.class))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.api.key-resolver='tenant-hedaer': no RateLimitKeyResolver bean "
                        + "has this @Named name, and no class has this name");
    }

    @Test
    @DisplayName("ratelimiter.api.key-resolver naming a class that is no resolver fails naming the property")
    void globalResolverOfWrongType() {
        assertThatThrownBy(() -> cdi = CdiContainer.start(config("ratelimiter.api.key-resolver",
                String.class.getName())))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.api.key-resolver='java.lang.String': java.lang.String does not "
                        + "implement dev.ratelimiter.RateLimitKeyResolver");
    }

    @Test
    @DisplayName("ratelimiter.api.key-resolver by @Named name and by class name: the filter's resolver reads the request")
    void globalResolver() {
        for (String value : new String[] {"tenant-header", TenantHeaderKeys.class.getName()}) {
            cdi = CdiContainer.start(config("ratelimiter.api.key-resolver", value), TenantHeaderKeys.class);
            KeyResolverInvoker resolvers = cdi.select(KeyResolverInvoker.class);
            RequestContextController request = cdi.select(RequestContextController.class);
            request.activate();
            try {
                RequestIdentity identity = cdi.select(RequestIdentity.class);
                identity.resolve(null, "198.51.100.9", new HeaderAttributes(Map.of("X-Tenant", "Acme")));

                KeyResolverInvoker.Resolver resolver = resolvers.global().orElseThrow();
                Optional<RawKey> key = resolvers.resolve(resolver,
                        resolvers.filterContext("api-anonymous", identity));

                assertThat(resolver.label()).as(value).isEqualTo(TenantHeaderKeys.class.getName());
                assertThat(key).contains(new RawKey("Acme", KeyNormalization.LOGIN,
                        KeyNamespace.APPLICATION));
            } finally {
                request.deactivate();
                cdi.close();
                cdi = null;
            }
        }
    }

    @Test
    @DisplayName("without ratelimiter.api.key-resolver the filter has no resolver")
    void noGlobalResolver() {
        cdi = CdiContainer.start(config(), TenantHeaderKeys.class);
        assertThat(cdi.select(KeyResolverInvoker.class).global()).isEmpty();
    }

    /** Headers only, as a test's request carries them (shared by this package's tests). */
    record HeaderAttributes(Map<String, String> headers) implements RequestAttributes {
        @Override
        public Optional<String> header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(Map.Entry::getValue).findFirst();
        }

        @Override
        public Optional<String> pathParameter(String name) {
            return Optional.empty();
        }

        @Override
        public Optional<String> queryParameter(String name) {
            return Optional.empty();
        }
    }
}
