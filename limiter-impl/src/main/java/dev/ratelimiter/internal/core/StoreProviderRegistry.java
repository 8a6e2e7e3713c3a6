package dev.ratelimiter.internal.core;

import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.spi.RateLimitStoreProvider;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * The store providers on the class path ({@link ServiceLoader}), by name: what {@code ratelimiter.backend} may
 * name besides {@code memory} (docs/writing-a-store.md).
 */
public final class StoreProviderRegistry {

    /** The built-in store that is no provider. */
    public static final String MEMORY = "memory";

    private final Map<String, RateLimitStoreProvider> byName;

    private StoreProviderRegistry(Map<String, RateLimitStoreProvider> byName) {
        this.byName = byName;
    }

    /**
     * The providers visible to this class's loader (the library's own, and those in the application's jars).
     *
     * @throws ConfigurationException when two providers share a name, or one is named {@code memory}
     */
    public static StoreProviderRegistry load() {
        return of(ServiceLoader.load(RateLimitStoreProvider.class, StoreProviderRegistry.class.getClassLoader()));
    }

    /**
     * @param providers the providers
     * @throws ConfigurationException when two providers share a name, or one is named {@code memory}
     */
    public static StoreProviderRegistry of(Iterable<RateLimitStoreProvider> providers) {
        Map<String, RateLimitStoreProvider> byName = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        for (RateLimitStoreProvider provider : providers) {
            RateLimitStoreProvider other = byName.putIfAbsent(provider.name(), provider);
            if (other != null || provider.name().equals(MEMORY)) {
                problems.add("ratelimiter.backend: two stores are named '" + provider.name() + "' ("
                        + provider.getClass().getName() + ", " + (other == null ? "the built-in memory store"
                        : other.getClass().getName()) + "); remove one jar");
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigurationException(problems);
        }
        return new StoreProviderRegistry(byName);
    }

    /** Every provider, by name. */
    public Map<String, RateLimitStoreProvider> byName() {
        return byName;
    }

    /** The names {@code ratelimiter.backend} accepts: {@code memory} and each provider's, for error texts. */
    public List<String> names() {
        List<String> names = new ArrayList<>();
        names.add(MEMORY);
        names.addAll(byName.keySet());
        return names;
    }
}
