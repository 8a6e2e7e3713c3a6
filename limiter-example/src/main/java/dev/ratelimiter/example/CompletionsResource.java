package dev.ratelimiter.example;

import dev.ratelimiter.RateLimitCosts;
import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code POST /api/completions} with {@code X-Tenant} and {@code {"prompt": "..."}}: a call to a language model
 * ({@link FakeModel}), whose cost in tokens is known only from its answer. Bucket {@code model-tokens} gives each
 * tenant 1 000 tokens a calendar day (UTC): a call reserves 1 token before the model runs, so it is refused only once
 * the day's budget is spent, and then settles the tokens the model reports (docs/guide.md#costs-settled-after-the-call).
 * The last call of a day may overrun the budget by what it used beyond what was left; the next is refused until
 * midnight UTC. Without the header: 400, counted nowhere.
 */
@Path("completions")
@RequestScoped
public class CompletionsResource {

    @Inject
    FakeModel model;

    @Inject
    RateLimitCosts costs;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited(bucket = "model-tokens", resolver = TenantKeyResolver.class, settle = true)
    public Completion complete(@HeaderParam(TenantKeyResolver.HEADER) String tenant, CompletionRequest request) {
        Completion completion = model.complete(request == null ? null : request.prompt());
        costs.settle(completion.tokens());
        return completion;
    }
}
