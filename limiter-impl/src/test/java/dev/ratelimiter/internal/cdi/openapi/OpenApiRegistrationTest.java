package dev.ratelimiter.internal.cdi.openapi;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The startup warning when mp.openapi.filter names a filter that leaves the limits out. */
class OpenApiRegistrationTest {

    /** An application's filter that keeps the limits. */
    public static class ExtendingFilter extends dev.ratelimiter.openapi.RateLimiterOasFilter {
    }

    /** An application's filter that replaces the library's. */
    public static class OwnFilter implements org.eclipse.microprofile.openapi.OASFilter {
    }

    private static Optional<String> problem(String named) {
        return OpenApiRegistration.problem(Optional.ofNullable(named), OpenApiRegistrationTest.class.getClassLoader());
    }

    @Test
    @DisplayName("the library's filter, or one extending it: no warning")
    void ours() {
        assertThat(problem(OpenApiRegistration.FILTER)).isEmpty();
        assertThat(problem(" " + ExtendingFilter.class.getName())).isEmpty();
    }

    @Test
    @DisplayName("another filter, one that cannot be loaded, or none: a warning naming the property and the fixes")
    void notOurs() {
        assertThat(problem(OwnFilter.class.getName())).hasValueSatisfying(warning -> assertThat(warning)
                .startsWith("mp.openapi.filter names " + OwnFilter.class.getName() + ", which does not extend "
                        + "dev.ratelimiter.openapi.RateLimiterOasFilter; the rate limits are not in the OpenAPI "
                        + "document")
                .contains("super.filterOpenAPI(openAPI)")
                .contains("ratelimiter.openapi.enabled=false")
                .contains("docs/openapi.md#with-a-filter-of-your-own"));
        assertThat(problem("com.example.Missing")).hasValueSatisfying(warning -> assertThat(warning)
                .startsWith("mp.openapi.filter names com.example.Missing, which cannot be loaded"));
        assertThat(problem(null)).hasValueSatisfying(warning -> assertThat(warning)
                .startsWith("mp.openapi.filter is not set; the rate limits are not in the OpenAPI document"));
    }
}
