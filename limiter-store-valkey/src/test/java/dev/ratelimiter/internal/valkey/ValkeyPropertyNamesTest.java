package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.spi.RateLimitStoreProvider;
import dev.ratelimiter.testing.StorePropertyNamesContract;

import java.util.Map;

/** The Valkey store's properties: known, a typo's nearest name, and the reference's rows. */
class ValkeyPropertyNamesTest extends StorePropertyNamesContract {

    @Override
    protected RateLimitStoreProvider provider() {
        return new ValkeyStoreProvider();
    }

    @Override
    protected Map<String, String> typos() {
        return Map.of("pool.size", "pool-size", "timout", "timeout");
    }
}
