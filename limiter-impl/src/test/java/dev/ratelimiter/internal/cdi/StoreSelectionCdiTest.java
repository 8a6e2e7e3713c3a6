package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.contract.MapStoreProvider;
import dev.ratelimiter.spi.ConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code ratelimiter.backend} and a provider's own settings fail the deployment when they cannot work. */
class StoreSelectionCdiTest {

    private CdiContainer cdi;

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    @Test
    @DisplayName("ratelimiter.backend naming no store found fails the deployment, listing the names found and the "
            + "page on writing a store")
    void unknownStore() {
        assertThatThrownBy(() -> cdi = CdiContainer.start(Map.of("ratelimiter.backend", "hazelcast")))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.backend: 'hazelcast' is not a store found on the class path")
                .hasMessageContaining("use one of memory, " + MapStoreProvider.NAME + " (")
                .hasMessageContaining("docs/writing-a-store.md");
    }

    @ParameterizedTest(name = "ratelimiter.backend={0}")
    @CsvSource({"valkey, dev.ratelimiter:limiter-store-valkey", "Postgres, dev.ratelimiter:limiter-store-postgres"})
    @DisplayName("one of the library's own stores without its module fails the deployment naming the artifact to add")
    void storeModuleAbsent(String backend, String artifact) {
        assertThatThrownBy(() -> cdi = CdiContainer.start(Map.of("ratelimiter.backend", backend)))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.backend: '" + backend + "' is a store of its own module, which is "
                        + "not on the class path: add the dependency " + artifact + " (the version of limiter-impl, "
                        + "or none with limiter-bom imported) to the application; "
                        + "docs/stores.md#the-stores-as-modules")
                .hasMessageNotContaining("NoClassDefFoundError");
    }

    @Test
    @DisplayName("a provider's invalid property (read through its subtree) fails the deployment naming it")
    void invalidStoreProperty() {
        assertThatThrownBy(() -> cdi = CdiContainer.start(Map.of("ratelimiter.backend", MapStoreProvider.NAME,
                "ratelimiter.test-map.down", "maybe")))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.test-map.down: 'maybe' is not a boolean");
    }
}
