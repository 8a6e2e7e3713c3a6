package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimited;
import dev.ratelimiter.internal.cdi.openapi.OpenApiRegistration;
import dev.ratelimiter.internal.cdi.openapi.ResourceLimits;
import dev.ratelimiter.openapi.RateLimiterOasFilter;
import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.testing.LogCapture;
import jakarta.enterprise.context.RequestScoped;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import org.eclipse.microprofile.openapi.OASFactory;
import org.jboss.weld.environment.se.WeldSEProvider;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.Paths;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The filter the server creates finds the application's bindings through CDI, as on a server. */
class OpenApiFilterCdiTest {

    @Path("things")
    @RequestScoped
    public static class Things {
        @GET
        @RateLimited(bucket = "search")
        public String list() {
            return "";
        }
    }

    private static final Map<String, String> SEARCH = Map.of(
            "ratelimiter.buckets.search.limit", "2",
            "ratelimiter.buckets.search.window", "PT1M");

    private static OpenAPI document() {
        Operation operation = OASFactory.createObject(Operation.class)
                .responses(OASFactory.createObject(APIResponses.class));
        PathItem item = OASFactory.createObject(PathItem.class);
        item.setOperation(PathItem.HttpMethod.GET, operation);
        return OASFactory.createObject(OpenAPI.class)
                .paths(OASFactory.createObject(Paths.class).addPathItem("/api/things", item));
    }

    private static List<?> limits(OpenAPI document) {
        Object extension = document.getPaths().getPathItem("/api/things").getGET().getExtensions() == null ? null
                : document.getPaths().getPathItem("/api/things").getGET().getExtensions().get("x-ratelimit");
        return extension == null ? List.of() : (List<?>) extension;
    }

    @Test
    @DisplayName("in a running application: the resource's bucket after the global filter's")
    void running() {
        OpenAPI document = document();
        try (CdiContainer cdi = CdiContainer.start(SEARCH, Things.class, ResourceLimits.class, OpenApiRegistration.class)) {
            new RateLimiterOasFilter().filterOpenAPI(document);
        }

        assertThat(limits(document).stream().map(limit -> (Object) ((Map<?, ?>) limit).get("bucket")).toList())
                .containsExactly("api-authenticated", "api-anonymous", "search");
        assertThat(document.getPaths().getPathItem("/api/things").getGET().getResponses().getAPIResponse("429")
                .getRef()).isEqualTo("#/components/responses/RateLimitExceeded");
    }

    @Test
    @DisplayName("ratelimiter.openapi.enabled=false: the document is left as it is")
    void off() {
        OpenAPI document = document();
        Map<String, String> properties = new java.util.HashMap<>(SEARCH);
        properties.put("ratelimiter.openapi.enabled", "false");
        try (CdiContainer cdi = CdiContainer.start(properties, Things.class, ResourceLimits.class, OpenApiRegistration.class)) {
            assertThat(RateLimiterOasFilter.addLimits(document)).isZero();
        }

        assertThat(limits(document)).isEmpty();
        assertThat(document.getComponents()).isNull();
    }

    /** An application's filter that replaces the library's. */
    public static class OwnFilter implements org.eclipse.microprofile.openapi.OASFilter {
    }

    @Test
    @DisplayName("an application's own mp.openapi.filter that does not extend the library's: warned once at startup")
    void replacedFilterWarned() {
        Map<String, String> properties = new java.util.HashMap<>(SEARCH);
        properties.put("mp.openapi.filter", OwnFilter.class.getName());
        try (LogCapture log = LogCapture.of(OpenApiRegistration.class);
             CdiContainer cdi = CdiContainer.start(properties, Things.class, ResourceLimits.class,
                     OpenApiRegistration.class)) {
            assertThat(log.messages(Level.WARNING)).singleElement().asString()
                    .startsWith("mp.openapi.filter names " + OwnFilter.class.getName() + ", which does not extend "
                            + "dev.ratelimiter.openapi.RateLimiterOasFilter");
        }
    }

    @Test
    @DisplayName("bad properties: the start fails with the validator's ConfigurationException naming them, not with "
            + "the OpenAPI check's read of the settings")
    void badPropertiesStillNamed() {
        Map<String, String> properties = new java.util.HashMap<>(SEARCH);
        properties.put("ratelimiter.buckets.search.window", "PT0.5S");

        assertThatThrownBy(() -> CdiContainer.start(properties, Things.class, ResourceLimits.class,
                OpenApiRegistration.class).close())
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.buckets.search.window: 'PT0.5S' must be a whole number of seconds");
    }

    @Test
    @DisplayName("no CDI container (a document built while the application does not run): nothing added, no error")
    void noContainer() {
        OpenAPI document = document();

        assertThat(RateLimiterOasFilter.addLimits(document)).isZero();
        assertThat(limits(document)).isEmpty();
    }

    @Test
    @DisplayName("a document built before the application's container runs (WildFly builds it while installing the "
            + "deployment, and serves that model): its limits are added when the application starts")
    void builtBeforeStartup() {
        OpenAPI document = document();
        assertThat(RateLimiterOasFilter.addLimits(document)).as("no container yet").isZero();

        try (CdiContainer cdi = CdiContainer.start(SEARCH, Things.class, ResourceLimits.class, OpenApiRegistration.class)) {
            assertThat(limits(document).stream().map(limit -> (Object) ((Map<?, ?>) limit).get("bucket")).toList())
                    .containsExactly("api-authenticated", "api-anonymous", "search");
        }
    }

    @Test
    @DisplayName("a document built after the start on a thread that reaches no container (Payara Micro 7 builds it so "
            + "for an application not at /): the started application's limits, at once; none once it stopped")
    void builtAfterStartupWithoutContainer() {
        OpenAPI document = document();
        try (CdiContainer cdi = CdiContainer.start(SEARCH, Things.class, ResourceLimits.class, OpenApiRegistration.class)) {
            // The server's thread: CDI.current() throws there, as Payara 7's provider does off an application's call.
            CDI.setCDIProvider(() -> {
                throw new IllegalStateException("Unable to access CDI");
            });
            try {
                assertThat(RateLimiterOasFilter.addLimits(document)).isEqualTo(1);
            } finally {
                CDI.setCDIProvider(new WeldSEProvider());
            }
        }

        assertThat(limits(document).stream().map(limit -> (Object) ((Map<?, ?>) limit).get("bucket")).toList())
                .containsExactly("api-authenticated", "api-anonymous", "search");
        assertThat(RateLimiterOasFilter.addLimits(document())).as("stopped: waits for the next start").isZero();
    }

    @Test
    @DisplayName("a document built on a thread whose CDI container is another application's (no library beans): the "
            + "started application's limits, not a warning and an empty document")
    void builtInAnotherApplicationsContainer() {
        OpenAPI document = document();
        try (CdiContainer cdi = CdiContainer.start(SEARCH, Things.class, ResourceLimits.class, OpenApiRegistration.class);
             CdiContainer other = CdiContainer.start(SEARCH, Things.class);
             LogCapture log = LogCapture.of(RateLimiterOasFilter.class)) {
            CDI.setCDIProvider(other::cdi);
            try {
                assertThat(RateLimiterOasFilter.addLimits(document)).isEqualTo(1);
            } finally {
                CDI.setCDIProvider(new WeldSEProvider());
            }
            assertThat(log.messages(Level.WARNING)).isEmpty();
        }

        assertThat(limits(document).stream().map(limit -> (Object) ((Map<?, ?>) limit).get("bucket")).toList())
                .containsExactly("api-authenticated", "api-anonymous", "search");
    }
}
