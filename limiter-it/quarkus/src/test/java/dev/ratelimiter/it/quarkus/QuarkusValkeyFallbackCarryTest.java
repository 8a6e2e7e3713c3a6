package dev.ratelimiter.it.quarkus;

import dev.ratelimiter.internal.valkey.RedisServer;
import dev.ratelimiter.it.FallbackCarryScenario;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
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
            return List.of(new TestResourceEntry(OwnRedis.class));
        }
    }

    /** Starts the profile's redis-server and hands it to the test. */
    public static class OwnRedis implements QuarkusTestResourceLifecycleManager {
        private RedisServer server;

        @Override
        public Map<String, String> start() {
            server = RedisServer.start();
            return Map.of("ratelimiter.backend", "valkey", "ratelimiter.valkey.url", server.url(),
                    "ratelimiter.deny-cache.max-age", "PT0S"); // FallbackCarryScenario.CONFIG
        }

        @Override
        public void inject(TestInjector injector) {
            injector.injectIntoFields(server, new TestInjector.MatchesType(RedisServer.class));
        }

        @Override
        public void stop() {
            if (server != null) {
                server.close();
            }
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
