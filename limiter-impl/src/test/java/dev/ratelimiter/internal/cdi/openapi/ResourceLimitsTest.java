package dev.ratelimiter.internal.cdi.openapi;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.RateLimitedBy;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import dev.ratelimiter.internal.core.settings.SettingsReader;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Which resource methods the OpenAPI document shows limits on, and how: path, HTTP method, buckets, keys. */
class ResourceLimitsTest {

    private static final Map<String, String> PROPERTIES = Map.ofEntries(
            Map.entry("ratelimiter.buckets.reports.limit", "5"),
            Map.entry("ratelimiter.buckets.reports.window", "PT1M"),
            Map.entry("ratelimiter.buckets.reports.plans", "pro"),
            Map.entry("ratelimiter.buckets.reports.plans.pro.limit", "50"),
            Map.entry("ratelimiter.buckets.reports.plan-resolver", "plans"),
            Map.entry("ratelimiter.buckets.login.limit", "5"),
            Map.entry("ratelimiter.buckets.login.window", "PT15M"),
            Map.entry("ratelimiter.buckets.login.on-outage", "fail-closed"),
            Map.entry("ratelimiter.buckets.login-address.limit", "20"),
            Map.entry("ratelimiter.buckets.login-address.window", "PT15M"),
            Map.entry("ratelimiter.buckets.api-authenticated.limit", "600"),
            Map.entry("ratelimiter.buckets.api-authenticated.window", "PT1M"),
            Map.entry("ratelimiter.buckets.api-anonymous.limit", "120"),
            Map.entry("ratelimiter.buckets.api-anonymous.window", "PT1M"));
    private static final LimiterSettings SETTINGS =
            SettingsReader.read(name -> Optional.ofNullable(PROPERTIES.get(name)), PROPERTIES.keySet());

    @Path("/things/")
    static class ThingsResource {

        @GET
        @Path("/{id: [0-9]+}/report")
        @RateLimited(bucket = "reports", resolverName = "tenant")
        public String report(String id) {
            return id;
        }

        @POST
        @RateLimitedBy({"login-address", "login"})
        public void create() {
        }

        @GET
        @Path("plain")
        public String plain() {
            return "";
        }

        @Path("sub")
        @RateLimited(bucket = "login")
        public Object locator() {
            return this;
        }

        @PUT
        @RateLimited(bucket = "login", key = RateLimited.Key.PRINCIPAL, fallback = RateLimited.Key.CLIENT_ADDRESS)
        @RateLimited(bucket = "login-address", key = RateLimited.Key.PARAMETER)
        public void update(@RateLimitKey String name) {
        }
    }

    @Path("api")
    interface Described {
        @GET
        @Path("described")
        String described();
    }

    @RateLimitedBy("login")
    static class Implementation implements Described {
        @Override
        public String described() {
            return "";
        }
    }

    static class NotAResource {
        @GET
        @RateLimited(bucket = "login")
        public void get() {
        }
    }

    private static DocumentedLimits.Operation operation(List<DocumentedLimits.Operation> operations, String method,
                                                        String path) {
        return operations.stream().filter(operation -> operation.httpMethod().equals(method)
                && operation.path().equals(path)).findFirst().orElseThrow(() -> new AssertionError(
                method + " " + path + " not in " + operations));
    }

    @Test
    @DisplayName("each limited resource method by HTTP method and path (templates without their expressions); "
            + "neither an unlimited method nor a sub-resource locator")
    void operations() {
        List<DocumentedLimits.Operation> operations = ResourceLimits.operations(ThingsResource.class, SETTINGS);

        assertThat(operations).extracting(operation -> operation.httpMethod() + " " + operation.path())
                .containsExactlyInAnyOrder("GET /things/{id}/report", "POST /things", "PUT /things");
    }

    @Test
    @DisplayName("@RateLimited: its bucket, plans and plan resolver; a resolver key without fallback may be missing")
    void rateLimited() {
        DocumentedLimits.Operation report = operation(ResourceLimits.operations(ThingsResource.class, SETTINGS),
                "GET", "/things/{id}/report");

        DocumentedLimits.Limit limit = report.limits().get(0);
        assertThat(limit.bucket().name()).isEqualTo("reports");
        assertThat(limit.source()).isEqualTo("RateLimited");
        assertThat(limit.key()).isEqualTo("resolver");
        assertThat(limit.keyMayBeMissing()).isTrue();
        assertThat(limit.plans()).containsOnlyKeys("pro");
        assertThat(limit.plans().get("pro").limit()).isEqualTo(50);
        assertThat(limit.planResolver()).as("the bucket's plan-resolver property").isEqualTo("plans");
    }

    @Test
    @DisplayName("repeated @RateLimited in order; the principal with a fallback to the address is never missing")
    void repeated() {
        DocumentedLimits.Operation update = operation(ResourceLimits.operations(ThingsResource.class, SETTINGS),
                "PUT", "/things");

        assertThat(update.limits()).extracting(limit -> limit.bucket().name()).containsExactly("login",
                "login-address");
        assertThat(update.limits().get(0).key()).isEqualTo("principal, client-address");
        assertThat(update.limits().get(0).keyMayBeMissing()).isFalse();
        assertThat(update.limits().get(0).failsClosed()).isTrue();
        assertThat(update.limits().get(1).key()).isEqualTo("parameter");
    }

    @Test
    @DisplayName("@RateLimitedBy: the buckets a bean counts in, key unknown; on a class, for each resource method, "
            + "with the JAX-RS annotations of the interface it implements")
    void rateLimitedBy() {
        DocumentedLimits.Operation create = operation(ResourceLimits.operations(ThingsResource.class, SETTINGS),
                "POST", "/things");
        assertThat(create.limits()).extracting(limit -> limit.bucket().name() + " " + limit.source() + " "
                + limit.key()).containsExactly("login-address RateLimitedBy null", "login RateLimitedBy null");

        assertThat(ResourceLimits.operations(Implementation.class, SETTINGS))
                .extracting(operation -> operation.httpMethod() + " " + operation.path() + " "
                        + operation.limits().get(0).bucket().name())
                .containsExactly("GET /api/described login");
    }

    @Test
    @DisplayName("a bean that is no JAX-RS resource has no operation")
    void notAResource() {
        assertThat(ResourceLimits.operations(NotAResource.class, SETTINGS)).isEmpty();
    }


    @Test
    @DisplayName("paths joined as JAX-RS joins them: one slash between segments, templates' expressions dropped")
    void join() {
        assertThat(ResourceLimits.join("/a/", "/{id : \\d+}/b/")).isEqualTo("/a/{id}/b");
        assertThat(ResourceLimits.join("a", "")).isEqualTo("/a");
        assertThat(ResourceLimits.join("/", "")).isEqualTo("/");
    }
}
