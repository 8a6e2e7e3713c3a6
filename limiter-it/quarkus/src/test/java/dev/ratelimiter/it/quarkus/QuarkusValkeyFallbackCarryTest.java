package dev.ratelimiter.it.quarkus;

import dev.ratelimiter.internal.valkey.RedisServer;
import dev.ratelimiter.it.FallbackCarryScenario;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.util.List;
import java.util.Map;

/**
 * {@link FallbackCarryScenario} on Quarkus with Valkey: a {@code redis-server} of this profile's own counts the
 * logins, the test kills it, and the fallback goes on from its counts.
 */
@QuarkusTest
@TestProfile(QuarkusValkeyFallbackCarryTest.Valkey.class)
class QuarkusValkeyFallbackCarryTest {

    /** Backend valkey on a redis-server started for this profile. */
    public static class Valkey implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            // The example scenarios' redis-server of the profile's own; deny cache off (FallbackCarryScenario.CONFIG).
            return List.of(new TestResourceEntry(QuarkusValkeyExampleApiTest.OwnRedis.class));
        }

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("ratelimiter.deny-cache.max-age", "PT0S");
        }
    }

    @TestHTTPResource("/")
    URL root;

    RedisServer valkey;

    @Test
    @DisplayName("Valkey killed: a locked account stays locked, one with 2 of 5 attempts left gets at most 2")
    void carried() throws Exception {
        FallbackCarryScenario scenario = FallbackCarryScenario.before(root.toURI());
        valkey.kill();
        scenario.assertCarried();
    }
}
