package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.internal.core.settings.SubtreeConfig;
import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.testing.RangeChecks;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code ratelimiter.valkey.*} as {@link ValkeySettings#read} reads it: defaults, ranges and problems. */
class ValkeySettingsTest {

    private final Map<String, String> properties = new HashMap<>();

    private ValkeySettings read() {
        SubtreeConfig config = new SubtreeConfig("valkey", name -> Optional.ofNullable(properties.get(name)));
        ValkeySettings settings = ValkeySettings.read(config);
        config.check();
        return settings;
    }

    private void assertProblem(String... fragments) {
        assertThatThrownBy(this::read).isInstanceOf(ConfigurationException.class)
                .satisfies(e -> assertThat(e.getMessage()).contains(fragments));
    }

    @Test
    @DisplayName("valkey defaults: standalone, redis://127.0.0.1:6379, 100 ms, prefix rl:, pool 32")
    void valkeyDefaults() {
        ValkeySettings valkey = read();
        assertThat(valkey.mode()).isEqualTo(ValkeySettings.Mode.STANDALONE);
        assertThat(valkey.url()).isEqualTo("redis://127.0.0.1:6379");
        assertThat(valkey.timeout()).isEqualTo(Duration.ofMillis(100));
        assertThat(valkey.keyPrefix()).isEqualTo("rl:");
        assertThat(valkey.poolSize()).isEqualTo(32);
    }

    @Test
    @DisplayName("a sentinel backend without nodes or master name, a bad URL and a braced prefix fail, naming each property")
    void valkeyProblems() {
        properties.put("ratelimiter.valkey.mode", "sentinel");
        properties.put("ratelimiter.valkey.url", "http://cache:6379");
        properties.put("ratelimiter.valkey.key-prefix", "rl{x}:");
        assertProblem("ratelimiter.valkey.nodes", "ratelimiter.valkey.master-name", "ratelimiter.valkey.url",
                "ratelimiter.valkey.key-prefix");
    }

    @Test
    @DisplayName("cluster nodes must be host:port")
    void valkeyNodes() {
        properties.put("ratelimiter.valkey.mode", "cluster");
        properties.put("ratelimiter.valkey.nodes", "node-1:6379, node-2");
        assertProblem("ratelimiter.valkey.nodes: 'node-2' is not host:port");
    }

    @Test
    @DisplayName("an unknown mode fails naming ratelimiter.valkey.mode and the modes")
    void unknownMode() {
        properties.put("ratelimiter.valkey.mode", "replicated");
        assertProblem("ratelimiter.valkey.mode: 'replicated' is not a mode; use standalone, sentinel or cluster");
    }

    @ParameterizedTest(name = "{0}: {1} and {2} accepted, {3} and {4} refused")
    @CsvSource({
            "ratelimiter.valkey.timeout,            PT0.001S,  PT10M,         PT0.0009S,   PT10M0.001S",
            "ratelimiter.valkey.pool-size,          1,         1024,          0,           1025"})
    @DisplayName("every number and duration is accepted at both ends of its range and refused just outside, named")
    void rangesAreInclusive(String property, String min, String max, String below, String above) {
        RangeChecks.inclusive(properties, this::read, property, min, max, below, above);
    }

    @Test
    @DisplayName("the provider declares every property the settings read")
    void propertyNames() {
        Map<String, String> seen = new HashMap<>();
        ValkeySettings.read(new SubtreeConfig("valkey", name -> {
            seen.put(name, "");
            return Optional.empty();
        }));
        assertThat(new ValkeyStoreProvider().propertyNames())
                .containsExactlyInAnyOrderElementsOf(seen.keySet().stream()
                        .map(name -> name.substring("ratelimiter.valkey.".length())).toList());
        assertThat(new ValkeyStoreProvider().name()).isEqualTo("valkey");
    }
}
