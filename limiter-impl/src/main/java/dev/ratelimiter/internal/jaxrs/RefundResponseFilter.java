package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.decision.CountedCall;
import dev.ratelimiter.internal.core.decision.RateLimitDecider;
import dev.ratelimiter.internal.core.settings.FailureCounting;
import dev.ratelimiter.internal.core.verdict.Refunds;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.ext.Provider;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Gives back the global filter's count of a request whose response did not fail, for a global bucket that counts
 * failures only ({@code ratelimiter.buckets.api-anonymous.count=failures}; docs/guide.md#counting-failures-only): a
 * status outside the bucket's {@code failure-statuses} (400 to 599 by default) is a success. A request the filter
 * refused counted nothing, and left nothing here. Once given back, the RateLimit headers report it. A global bucket that
 * limits concurrency ({@code ratelimiter.buckets.api-authenticated.concurrency}) has its permit given back here, before
 * the response's body is written (docs/guide.md#concurrency-limits).
 */
@Provider
@ApplicationScoped
@Priority(Priorities.HEADER_DECORATOR + 1) // before RateLimitHeadersFilter (response filters: highest first)
public class RefundResponseFilter implements ContainerResponseFilter {

    /** The request property under which the global filter leaves a {@link Pending}. */
    static final String COUNTED = RefundResponseFilter.class.getName() + ".counted";

    @Inject
    RateLimitDecider decider;

    /**
     * What the global filter counted for a failures-only bucket, filled when it decided.
     *
     * @param counting the bucket's failure statuses
     * @param counted  the counted call, or empty when nothing was counted
     * @param recorder records the verdict the headers report, replacing the decision's
     */
    record Pending(FailureCounting counting, List<CountedCall> counted, Consumer<Verdict> recorder,
                   AtomicBoolean ended) {

        Pending(FailureCounting counting, List<CountedCall> counted, Consumer<Verdict> recorder) {
            this(counting, counted, recorder, new AtomicBoolean());
        }

        /**
         * Gives back a concurrency bucket's permit, once, whatever the status: what the response filter does, and the
         * request's end if no response was filtered.
         *
         * @return whether the counted call was a permit
         */
        boolean givenBack(RateLimitDecider decider) {
            if (counted.isEmpty() || !counted.get(0).isPermit()) {
                return false;
            }
            if (ended.compareAndSet(false, true)) {
                decider.refund(counted);
            }
            return true;
        }
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (!(request.getProperty(COUNTED) instanceof Pending pending)) {
            return;
        }
        request.removeProperty(COUNTED); // registered twice (scanning and RateLimiterFeature): give back once
        if (pending.givenBack(decider)) {
            return;
        }
        if (!pending.counted().isEmpty() && !pending.counting().failedWith(response.getStatus())
                && decider.refund(pending.counted())) {
            CountedCall call = pending.counted().get(0);
            pending.recorder().accept(Refunds.givenBack(call.bucket(), call.verdict(), call.cost()));
        }
    }
}
