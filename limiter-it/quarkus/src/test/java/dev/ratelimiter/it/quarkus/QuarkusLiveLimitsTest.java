package dev.ratelimiter.it.quarkus;

import dev.ratelimiter.it.LiveLimitsScenarios;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.util.Map;

/**
 * Limits changed while Quarkus runs, through the reload file ({@link LiveLimitsScenarios}), which a profile of its
 * own names: Quarkus restarts for it, so the other tests' application never reads the file.
 */
@QuarkusTest
@TestProfile(QuarkusLiveLimitsTest.Live.class)
class QuarkusLiveLimitsTest extends LiveLimitsScenarios {

    /** {@link LiveLimitsScenarios#CONFIG}: the reload file, read every second. */
    public static class Live implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("ratelimiter.reload.file", LIMITS_FILE.toString(), "ratelimiter.reload.interval", "PT1S");
        }
    }

    @TestHTTPResource("/")
    URL root;

    @Override
    protected URI baseUri() {
        try {
            return root.toURI();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    protected String readinessPath() {
        return "q/health/ready";
    }
}
