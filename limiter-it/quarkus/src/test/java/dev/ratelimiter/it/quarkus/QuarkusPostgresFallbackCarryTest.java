package dev.ratelimiter.it.quarkus;

import dev.ratelimiter.it.FallbackCarryScenario;
import dev.ratelimiter.it.ProxiedPostgres;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * {@link FallbackCarryScenario} on Quarkus with PostgreSQL: the library's own pool counts the logins through a proxy
 * of this profile's own, the test cuts it, and the fallback goes on from PostgreSQL's counts.
 */
@QuarkusTest
@TestProfile(QuarkusPostgresFallbackCarryTest.Postgres.class)
class QuarkusPostgresFallbackCarryTest {

    /** Backend postgres through a proxy started for this profile. */
    public static class Postgres implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(OwnProxy.class));
        }
    }

    /** Makes the schema and starts the proxy, and hands them to the test. */
    public static class OwnProxy implements QuarkusTestResourceLifecycleManager {
        private ProxiedPostgres postgres;

        @Override
        public Map<String, String> start() {
            postgres = new ProxiedPostgres("rl_quarkus_carry");
            Properties config = new Properties();
            try {
                config.load(new StringReader(FallbackCarryScenario.CONFIG + postgres.config()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Map<String, String> overrides = new HashMap<>();
            config.stringPropertyNames().forEach(name -> overrides.put(name, config.getProperty(name)));
            return overrides;
        }

        @Override
        public void inject(TestInjector injector) {
            injector.injectIntoFields(postgres, new TestInjector.MatchesType(ProxiedPostgres.class));
        }

        @Override
        public void stop() {
            if (postgres != null) {
                postgres.close();
            }
        }
    }

    @TestHTTPResource("/")
    URL root;

    ProxiedPostgres postgres;

    @Test
    @DisplayName("PostgreSQL cut off: a locked account stays locked, one with 2 of 5 attempts left gets at most 2")
    void carried() throws Exception {
        FallbackCarryScenario scenario = FallbackCarryScenario.before(root.toURI());
        postgres.cut();
        scenario.assertCarried();
    }
}
