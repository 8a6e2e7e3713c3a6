package dev.ratelimiter.it.quarkus;

import dev.ratelimiter.it.ExampleApi;
import dev.ratelimiter.it.ExampleApiScenarios;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.http.HttpResponse;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example API's scenarios on Quarkus (ArC, Quarkus REST, SmallRye Health, Micrometer) with the in-memory
 * backend, the library jar used as published. A missing bean-archive marker would make the library do nothing
 * without failing: the 429 scenarios would then fail here.
 */
@QuarkusTest
class QuarkusExampleApiTest extends ExampleApiScenarios {

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

    @Override
    protected String metricsPath() {
        return "q/metrics";
    }

    @Test
    @DisplayName("a @RateLimited method returning Uni: 10 allowed with RateLimit headers, then 429 naming the bucket")
    void uniLimited() {
        assertRefusedAfter(client(), "api/reactive/quota", "reactive", 10);
    }

    @Test
    @DisplayName("a @RateLimited method returning Multi: 10 streams allowed, then 429 with Retry-After naming the bucket")
    void multiLimited() {
        // Quarkus REST streams a Multi's items as they come, so an allowed response carries no RateLimit headers.
        ExampleApi client = client();
        for (int i = 1; i <= 10; i++) {
            HttpResponse<String> response = client.get("api/reactive/feed");
            assertThat(response.statusCode()).as("request %d", i).isEqualTo(200);
            assertThat(response.body()).as("request %d", i).contains("first", "second");
        }

        HttpResponse<String> refused = client.get("api/reactive/feed");

        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
        assertThat(ExampleApi.json(refused).getString("bucket")).isEqualTo("reactive");
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
    }

    @Test
    @DisplayName("Quarkus's test profile: the bucket under %test. exists, the one under %dev. does not")
    void bucketsUnderProfiles() {
        assertBucketsUnderProfiles("profiled", "dev-only");
    }

    /** Quarkus REST answers OPTIONS for a resource without an {@code @OPTIONS} method before request filters. */
    @Override
    protected boolean optionsReachFilters() {
        return false;
    }

    /** {@link #WAITS_ELSEWHERE}: the burst window's wait runs on Payara Micro 6 and Open Liberty. */
    @Override
    protected Map<String, String> scenariosNotRun() {
        return WAITS_ELSEWHERE;
    }
}
