package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.spi.RateLimitStoreProvider;
import dev.ratelimiter.testing.StorePropertyNamesContract;

import java.util.Map;

/** The PostgreSQL store's properties: known, a typo's nearest name, and the reference's rows. */
class PostgresPropertyNamesTest extends StorePropertyNamesContract {

    @Override
    protected RateLimitStoreProvider provider() {
        return new PostgresStoreProvider();
    }

    @Override
    protected Map<String, String> typos() {
        return Map.of("timout", "timeout", "tabel", "table");
    }
}
