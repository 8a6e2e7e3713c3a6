package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.RateLimitCosts;
import dev.ratelimiter.internal.cdi.call.AppliedLimits;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.ext.Provider;

import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Reads the cost a resource gave in the response header {@link RateLimitCosts#HEADER} and removes the header, so it
 * never leaves the server; settles with it the calls of the request whose cost is settled after the call and was
 * not given otherwise (docs/guide.md#costs-settled-after-the-call). A missing or malformed value settles nothing:
 * those calls keep what they reserved; a malformed one is logged once. Runs before {@link RateLimitHeadersFilter},
 * so the RateLimit headers report what is left after the settlement.
 */
@Provider
@ApplicationScoped
@Priority(Priorities.HEADER_DECORATOR + 1) // before RateLimitHeadersFilter (response filters: highest first)
public class SettlementResponseFilter implements ContainerResponseFilter {

    private static final System.Logger LOG = System.getLogger(SettlementResponseFilter.class.getName());
    // 18 digits always fit a long; the library caps a settled cost far below anyway (Refunds.settlement)
    private static final Pattern COST = Pattern.compile("[0-9]{1,18}");

    private final AtomicBoolean malformedLogged = new AtomicBoolean();
    private final AtomicBoolean unreadLogged = new AtomicBoolean();

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        Object value = response.getHeaders().getFirst(RateLimitCosts.HEADER);
        if (value != null) {
            response.getHeaders().remove(RateLimitCosts.HEADER);
        }
        if (!(request.getProperty(GlobalRateLimitFilter.APPLIED) instanceof AppliedLimits.Handle handle)) {
            return;
        }
        List<Consumer<OptionalLong>> awaiting = handle.takeAwaitingCost();
        if (awaiting.isEmpty()) {
            if (value != null && unreadLogged.compareAndSet(false, true)) {
                LOG.log(System.Logger.Level.INFO, "Rate limiter: a response carried " + RateLimitCosts.HEADER
                        + " but no call of its request waited for it (a method without @RateLimited(settle = true), "
                        + "one returning a CompletionStage or Uni, or one that gave its cost otherwise); removed "
                        + "unread. Logged once.");
            }
            return;
        }
        OptionalLong cost = cost(value);
        if (value != null && cost.isEmpty() && malformedLogged.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.WARNING, "Rate limiter: a response's " + RateLimitCosts.HEADER + " header "
                    + "is not a non-negative decimal integer; its calls keep the cost they reserved. Logged once.");
        }
        for (Consumer<OptionalLong> settle : awaiting) {
            settle.accept(cost);
        }
    }

    /** A header's value as a cost: a non-negative decimal integer of at most 18 digits; anything else gives none. */
    static OptionalLong cost(Object value) {
        String text = value == null ? "" : value.toString().trim();
        return COST.matcher(text).matches() ? OptionalLong.of(Long.parseLong(text)) : OptionalLong.empty();
    }
}
