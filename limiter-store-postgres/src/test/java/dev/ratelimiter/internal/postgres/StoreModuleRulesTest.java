package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.architecture.StoreModuleRules;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The store module's rules (docs/architecture.md#modules) on this module's classes. */
class StoreModuleRulesTest {

    @Test
    @DisplayName("the PostgreSQL store is built on the SPI, the API, the JDK, pgjdbc and HikariCP alone")
    void onlySpiApiPgjdbcAndHikari() {
        StoreModuleRules.onlySpiApiAndClient("dev.ratelimiter.internal.postgres", "org.postgresql..", "com.zaxxer..");
    }

    @Test
    @DisplayName("a jqwik property of this module's tests carries no JUnit Jupiter annotation")
    void propertiesRun() {
        StoreModuleRules.propertiesCarryNoJupiterAnnotation("dev.ratelimiter");
    }
}
