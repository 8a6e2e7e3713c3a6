package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.architecture.StoreModuleRules;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The store module's rules (docs/architecture.md#modules) on this module's classes. */
class StoreModuleRulesTest {

    @Test
    @DisplayName("the Valkey store is built on the SPI, the API, the JDK and Jedis alone")
    void onlySpiApiAndJedis() {
        StoreModuleRules.onlySpiApiAndClient("dev.ratelimiter.internal.valkey", "redis.clients..",
                "org.apache.commons.pool2..");
    }

    @Test
    @DisplayName("a jqwik property of this module's tests carries no JUnit Jupiter annotation")
    void propertiesRun() {
        StoreModuleRules.propertiesCarryNoJupiterAnnotation("dev.ratelimiter");
    }
}
