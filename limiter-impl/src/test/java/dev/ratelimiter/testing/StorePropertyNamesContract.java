package dev.ratelimiter.testing;

import dev.ratelimiter.internal.core.settings.UnknownProperties;
import dev.ratelimiter.spi.RateLimitStoreProvider;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a store module's properties must satisfy, with the module on the class path: each is known (no warning, also
 * under a profile), a misspelt one is reported with the nearest, and docs/reference.md#properties lists exactly
 * them under {@code ratelimiter.<store>.}. A store module's test extends it.
 */
public abstract class StorePropertyNamesContract {

    /** {@return the store's provider, as the library finds it} */
    protected abstract RateLimitStoreProvider provider();

    /** {@return misspelt names relative to the subtree ({@code timout}), each with the name meant ({@code timeout})} */
    protected abstract Map<String, String> typos();

    @Test
    @DisplayName("the store's properties are known, also under a profile")
    void known() {
        String subtree = "ratelimiter." + provider().name() + ".";
        for (String property : provider().propertyNames()) {
            assertThat(UnknownProperties.warnings(List.of(subtree + property, "%prod." + subtree + property)))
                    .as(property).isEmpty();
        }
    }

    @Test
    @DisplayName("a misspelt property of the store is reported with the nearest, its profile kept")
    void nearestKnownProperty() {
        String subtree = "ratelimiter." + provider().name() + ".";
        assertThat(typos()).isNotEmpty();
        typos().forEach((typo, meant) -> {
            for (String profile : List.of("", "%dev,test.")) {
                String name = profile + subtree + typo;
                assertThat(UnknownProperties.warnings(List.of(name))).containsExactly("Unknown property " + name
                        + " is ignored; did you mean " + profile + subtree + meant + "?");
            }
        });
    }

    @Test
    @DisplayName("the reference lists exactly the properties the store reads")
    void referenceListsTheProvidersProperties() {
        String subtree = "ratelimiter." + provider().name() + ".";
        assertThat(ReferenceProperties.read().keySet().stream().filter(name -> name.startsWith(subtree))
                .map(name -> name.substring(subtree.length())).collect(Collectors.toSet()))
                .containsExactlyInAnyOrderElementsOf(provider().propertyNames());
    }
}
