package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.spi.RateLimitStoreProvider;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * The store providers on the class path ({@link ServiceLoader}), by name: what {@code ratelimiter.backend} may
 * name besides {@code memory} (docs/writing-a-store.md).
 */
public final class StoreProviderRegistry {

    /** The built-in store that is no provider. */
    public static final String MEMORY = "memory";

    /**
     * The library's own shared stores, each a module of its own that an application adds
     * (docs/stores.md#the-valkey--redis-backend, docs/stores.md#the-postgresql-backend): for a backend named here
     * whose module is absent, the artifact to add, so the deployment fails with it rather than with a bare
     * "not found".
     */
    private static final Map<String, String> OWN_MODULES = Map.of(
            "valkey", "dev.ratelimiter:limiter-store-valkey",
            "postgres", "dev.ratelimiter:limiter-store-postgres");

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

    /**
     * @param name a value of {@code ratelimiter.backend}, lower case
     * @return the Maven coordinates ({@code groupId:artifactId}) of the library's own store module of that name when
     *         it is not on the class path; empty for a store found, {@code memory} and any other name
     */
    public Optional<String> missingModule(String name) {
        return byName.containsKey(name) ? Optional.empty() : Optional.ofNullable(OWN_MODULES.get(name));
    }

    /** The names {@code ratelimiter.backend} accepts: {@code memory} and each provider's, for error texts. */
    public List<String> names() {
        List<String> names = new ArrayList<>();
        names.add(MEMORY);
        names.addAll(byName.keySet());
        return names;
    }
}
