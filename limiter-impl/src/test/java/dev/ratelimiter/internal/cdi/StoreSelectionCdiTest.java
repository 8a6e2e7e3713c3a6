package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.contract.MapStoreProvider;
import dev.ratelimiter.spi.ConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

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
                .hasMessageContaining("memory, postgres, " + MapStoreProvider.NAME + ", valkey")
                .hasMessageContaining("docs/writing-a-store.md");
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
