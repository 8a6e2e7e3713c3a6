package dev.ratelimiter.it.quarkus;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code quarkus.http.root-path} plays the servlet context root: the /api/ prefix is matched after it. */
@QuarkusTest
@TestProfile(RootPathTest.UnderCtx.class)
class RootPathTest {

    /** The application under /ctx. */
    public static class UnderCtx implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.http.root-path", "/ctx");
        }
    }

    @TestHTTPResource("/")
    URL root;

    @Test
    @DisplayName("/ctx/api/projects is limited by the /api/ prefix")
    void limitedUnderTheRootPath() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                root.toURI().resolve("api/projects")).header("X-Forwarded-For", "192.0.2.99").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.uri().getPath()).isEqualTo("/ctx/api/projects");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("RateLimit")).hasValueSatisfying(
                value -> assertThat(value).startsWith("\"api-anonymous\";r=119;"));
    }
}
