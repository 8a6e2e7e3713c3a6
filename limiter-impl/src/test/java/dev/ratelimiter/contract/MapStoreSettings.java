package dev.ratelimiter.contract;

import dev.ratelimiter.internal.core.settings.LimiterSettings;
import dev.ratelimiter.internal.core.settings.SettingsReader;
import dev.ratelimiter.internal.core.settings.StoreProviderRegistry;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Settings read as the library reads them, for a chain assembled by hand: the global filter's buckets, the given
 * properties above them, and the store providers of the test class path ({@link MapStoreProvider}).
 */
public final class MapStoreSettings {

    /**
     * The global filter's two buckets, which every configuration must hold (the library's own
     * {@code microprofile-config.properties} sets them in a server).
     */
    public static final Map<String, String> GLOBAL_BUCKETS = Map.of(
            "ratelimiter.buckets.api-authenticated.limit", "600",
            "ratelimiter.buckets.api-authenticated.window", "PT1M",
            "ratelimiter.buckets.api-anonymous.limit", "120",
            "ratelimiter.buckets.api-anonymous.window", "PT1M");

    private MapStoreSettings() {
    }

    /**
     * @param properties {@code ratelimiter.*} properties, such as {@code ratelimiter.backend=test-map}
     * @return the settings
     */
    public static LimiterSettings read(Map<String, String> properties) {
        Map<String, String> all = new HashMap<>(GLOBAL_BUCKETS);
        all.putAll(properties);
        return SettingsReader.read(name -> Optional.ofNullable(all.get(name)), all.keySet(),
                StoreProviderRegistry.of(List.of(new MapStoreProvider())));
    }
}
