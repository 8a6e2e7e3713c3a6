package dev.ratelimiter.example;

import dev.ratelimiter.Limit;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.time.Duration;
import java.util.List;

/**
 * {@code GET /api/usage} with {@code X-Tenant}: the tenant's quotas, read without spending any
 * ({@link RateLimits#usage}), as an API product shows its customers theirs: for each window of buckets
 * {@code reports} and {@code reports-monthly}, under the tenant's plan, its limit, what is left and the seconds until
 * it resets (a month's: until the 1st at midnight in the tenant's zone). Without the
 * header: 400; while the store is out and {@code reports} fails closed: 503. Like every {@code /api/} request, it
 * counts in the global limit, never in {@code reports}.
 */
@Path("usage")
@RequestScoped
public class UsageResource {

    /** The buckets a tenant's quotas are in: those keyed by {@link TenantKeyResolver}. */
    static final List<String> TENANT_BUCKETS = List.of(DemoTenants.REPORTS, DemoTenants.REPORTS_MONTHLY);

    @Inject
    RateLimits limits;

    @Inject
    TenantKeyResolver tenants;

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response usage(@HeaderParam(TenantKeyResolver.HEADER) String tenant) {
        if (tenant == null || tenant.isBlank()) {
            return problem(Response.Status.BAD_REQUEST, "Name the tenant in " + TenantKeyResolver.HEADER + ".");
        }
        JsonArrayBuilder quotas = Json.createArrayBuilder();
        for (String bucket : TENANT_BUCKETS) {
            // The tenant's key as the bucket's resolver gives it: the header, normalized the resolver's way.
            Verdict usage = limits.usage(bucket, tenant, tenants.normalization());
            if (usage.outcome() == Verdict.Outcome.UNAVAILABLE) {
                return problem(Response.Status.SERVICE_UNAVAILABLE, "The quota cannot be read now; try again later.");
            }
            if (usage.windows().isEmpty()) {
                Limit limit = limits.bucket(bucket).limits().get(0);
                quotas.add(quota(bucket, windowText(limit), usage.limit(), usage.remaining(),
                        seconds(usage.resetAfter())));
            } else {
                for (Verdict.Window window : usage.windows()) {
                    quotas.add(quota(bucket, windowText(window.limit()), window.limit().limit(),
                            window.remaining(), seconds(window.resetAfter())));
                }
            }
        }
        return Response.ok(Json.createObjectBuilder().add("tenant", tenant).add("quotas", quotas).build()).build();
    }

    /** A window as configuration writes it: {@code PT1M}, or a calendar period's name, {@code month}. */
    private static String windowText(Limit limit) {
        return limit.isCalendar() ? limit.windowName() : limit.window().toString();
    }

    /** An RFC 9457 problem of this status. */
    private static Response problem(Response.Status status, String detail) {
        return Response.status(status).type("application/problem+json")
                .entity(Json.createObjectBuilder().add("type", "about:blank").add("title", status.getReasonPhrase())
                        .add("status", status.getStatusCode()).add("detail", detail).build().toString())
                .build();
    }

    /** Rounded up, 0 for none: a full token bucket resets in 0 s. */
    private static long seconds(Duration duration) {
        return (duration.toMillis() + 999) / 1_000;
    }

    private static jakarta.json.JsonObjectBuilder quota(String bucket, String window, long limit, long remaining,
                                                        long resetSeconds) {
        return Json.createObjectBuilder().add("bucket", bucket).add("window", window).add("limit", limit)
                .add("remaining", remaining).add("reset_seconds", resetSeconds);
    }
}
