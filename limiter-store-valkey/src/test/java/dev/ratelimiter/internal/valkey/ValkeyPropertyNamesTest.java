package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.internal.core.UnknownProperties;
import dev.ratelimiter.testing.ReferenceProperties;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With this module on the class path, its properties are known and a misspelt one gets the nearest of them; and they
 * are the ones docs/reference.md#properties lists under {@code ratelimiter.valkey.}.
 */
class ValkeyPropertyNamesTest {

    @ParameterizedTest(name = "{0}: did you mean {1}?")
    @CsvSource(delimiter = '|', value = {
            "ratelimiter.valkey.pool.size        | ratelimiter.valkey.pool-size",
            "%dev,test.ratelimiter.valkey.timout | %dev,test.ratelimiter.valkey.timeout"})
    @DisplayName("a misspelt property of the Valkey store is reported with the nearest, its profile kept")
    void nearestKnownProperty(String typo, String nearest) {
        assertThat(UnknownProperties.warnings(List.of(typo)))
                .containsExactly("Unknown property " + typo + " is ignored; did you mean " + nearest + "?");
    }

    @Test
    @DisplayName("the Valkey store's properties are known, also under a profile")
    void known() {
        assertThat(UnknownProperties.warnings(List.of("ratelimiter.valkey.url", "%prod.ratelimiter.valkey.url",
                "ratelimiter.valkey.mode", "ratelimiter.valkey.key-prefix"))).isEmpty();
    }

    @Test
    @DisplayName("the reference lists exactly the properties the Valkey store reads")
    void referenceListsTheProvidersProperties() {
        String subtree = "ratelimiter.valkey.";
        assertThat(ReferenceProperties.read().keySet().stream().filter(name -> name.startsWith(subtree))
                .map(name -> name.substring(subtree.length())).collect(Collectors.toSet()))
                .containsExactlyInAnyOrderElementsOf(new ValkeyStoreProvider().propertyNames());
    }
}
