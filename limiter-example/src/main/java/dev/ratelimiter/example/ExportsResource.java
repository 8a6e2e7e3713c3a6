package dev.ratelimiter.example;

import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import java.util.concurrent.TimeUnit;

/**
 * {@code POST /api/exports?seconds=N} with {@code X-Tenant}: a slow export, which runs {@code N} seconds (0 to 30, 2
 * by default) and answers what it exported. Bucket {@code exports} lets each tenant run 2 at once, across every
 * replica: each export holds a permit from before it runs until it answers, so a third started while two run is
 * refused with 429 and {@code Retry-After: 1} (docs/guide.md#concurrency-limits). Without the header: 400, counted
 * nowhere.
 */
@Path("exports")
@RequestScoped
public class ExportsResource {

    /** The longest export, in seconds. */
    static final int MAX_SECONDS = 30;

    /**
     * What an export answers.
     *
     * @param tenant  the tenant it ran for
     * @param seconds how long it ran
     */
    public record Export(String tenant, int seconds) {
    }

    @POST
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited(bucket = "exports", resolver = TenantKeyResolver.class)
    public Export export(@HeaderParam(TenantKeyResolver.HEADER) String tenant,
                         @QueryParam("seconds") @DefaultValue("2") int seconds) throws InterruptedException {
        if (seconds < 0 || seconds > MAX_SECONDS) {
            throw new BadRequestException("seconds must be from 0 to " + MAX_SECONDS);
        }
        // Stands for the export's work: a query over the tenant's data that takes its time
        TimeUnit.SECONDS.sleep(seconds);
        return new Export(tenant, seconds);
    }
}
