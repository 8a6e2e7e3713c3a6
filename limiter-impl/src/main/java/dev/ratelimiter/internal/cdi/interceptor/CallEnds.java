package dev.ratelimiter.internal.cdi.interceptor;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.cdi.call.AppliedLimits;
import dev.ratelimiter.internal.cdi.call.CostResolvers;
import dev.ratelimiter.internal.core.decision.CountedCall;
import dev.ratelimiter.internal.core.decision.RateLimitDecider;
import dev.ratelimiter.internal.core.decision.Settlement;
import dev.ratelimiter.internal.core.verdict.Refunds;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.interceptor.InvocationContext;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

/**
 * What the end of a call does to the counts it kept: a failures-only bucket's successful call is given back
 * (docs/guide.md#counting-failures-only); a settled bucket's call is settled at the cost it turned out to have
 * (docs/guide.md#costs-settled-after-the-call), the one the method gave ({@link SettledCalls}), else its cost
 * resolver's, else, for a call in an HTTP request, the response header {@code X-RateLimit-Cost} once the response is
 * filtered, else what it reserved. One store round trip for all of a call's corrections; the request's RateLimit
 * headers then report them. A concurrency bucket's permit is given back, whatever the outcome.
 */
@ApplicationScoped
public class CallEnds {

    private static final System.Logger LOG = System.getLogger(CallEnds.class.getName());

    @Inject
    RateLimitDecider decider;

    @Inject
    CostResolvers costResolvers;

    @Inject
    EventLoopOffload offload;

    private final AtomicBoolean failureLogged = new AtomicBoolean();

    /**
     * Runs the method and settles the calls it kept once it ends: returned or thrown, or, for a
     * {@code CompletionStage}, completed (its stage is returned as it is, so the caller sees the same result or
     * exception).
     *
     * @param frame    the costs the method gives; {@code null} when it settles no bucket
     * @param recorder replaces a bucket's verdict in the request's RateLimit headers
     * @param request  the request's limits, where a settled cost not given by then waits for the response header;
     *                 {@code null} outside an HTTP request the global filter saw
     */
    Object proceed(InvocationContext context, ResultType result, List<RateLimitedMethodCache.BoundLimit> limits,
                   List<CountedCall> counted, SettledCalls.Frame frame, BiConsumer<Bucket, Verdict> recorder,
                   AppliedLimits request) throws Exception {
        Object value;
        try {
            value = context.proceed();
        } catch (Exception | Error e) {
            // A failed call is settled now: its response may never meet the response filters
            end(limits, counted, frame, null, e, recorder, null);
            throw e;
        }
        if (result == ResultType.COMPLETION_STAGE && value instanceof CompletionStage<?> stage) {
            // Completed after the response may have been filtered: no waiting for its header
            stage.whenComplete((item, failure) -> endElsewhere(limits, counted, frame, item, failure, recorder));
        } else {
            end(limits, counted, frame, value, null, recorder, request);
        }
        return value;
    }

    /**
     * A call that never ran, its decision having failed after it took a concurrency bucket's permit: the permits go
     * back (its counts stay, as a refused call's do). Never throws.
     *
     * @param counted the call's counted calls; {@code null} when it keeps none
     */
    void abandoned(List<CountedCall> counted) {
        if (counted == null) {
            return;
        }
        List<Settlement> permits = counted.stream().filter(CountedCall::isPermit)
                .map(call -> new Settlement(call, call.cost(), false)).toList();
        if (!permits.isEmpty()) {
            decider.settle(permits);
        }
    }

    /**
     * {@link #end} for a call that ended on a thread of its own (a {@code CompletionStage}'s, a {@code Uni}'s): moved
     * to a worker thread if that is a Vert.x event loop and the store blocks, as the decision is.
     */
    void endElsewhere(List<RateLimitedMethodCache.BoundLimit> limits, List<CountedCall> counted, Object item,
                      Throwable failure, BiConsumer<Bucket, Verdict> recorder) {
        endElsewhere(limits, counted, null, item, failure, recorder);
    }

    private void endElsewhere(List<RateLimitedMethodCache.BoundLimit> limits, List<CountedCall> counted,
                              SettledCalls.Frame frame, Object item, Throwable failure,
                              BiConsumer<Bucket, Verdict> recorder) {
        if (!decider.blocking() || !offload.offload(() -> {
            end(limits, counted, frame, item, failure, recorder, null);
            return null;
        }, (ignored, thrown) -> { })) {
            end(limits, counted, frame, item, failure, recorder, null);
        }
    }

    /**
     * Settles each kept call of an ended call; never throws (a defect here is logged once, and the calls keep what
     * they were counted at), so the method's own result or exception reaches its caller.
     *
     * @param result   what the method returned, or its stage's or {@code Uni}'s item; {@code null} for a failure
     * @param failure  what it threw or failed with; {@code null} when it succeeded
     * @param request  where a settled cost not given yet waits for the response header; {@code null}: it is not
     *                 waited for (the call keeps what it reserved)
     */
    void end(List<RateLimitedMethodCache.BoundLimit> limits, List<CountedCall> counted, SettledCalls.Frame frame,
             Object result, Throwable failure, BiConsumer<Bucket, Verdict> recorder, AppliedLimits request) {
        try {
            settleEnded(limits, counted, frame, result, failure, recorder, request);
        } catch (RuntimeException e) {
            if (failureLogged.compareAndSet(false, true)) {
                LOG.log(System.Logger.Level.ERROR, "Rate limiter: settling a call's count failed; its calls keep "
                        + "what they were counted at. Logged once.", e);
            }
        }
    }

    private void settleEnded(List<RateLimitedMethodCache.BoundLimit> limits, List<CountedCall> counted,
                             SettledCalls.Frame frame, Object result, Throwable failure,
                             BiConsumer<Bucket, Verdict> recorder, AppliedLimits request) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        List<Settlement> settlements = new ArrayList<>(counted.size());
        List<CountedCall> awaiting = new ArrayList<>(0);
        for (CountedCall call : counted) {
            if (call.isPermit()) {
                // a concurrency bucket's permit goes back however the call ended (docs/guide.md#concurrency-limits)
                settlements.add(new Settlement(call, call.cost(), false));
                continue;
            }
            int index = indexOf(limits, call.bucket());
            RateLimitedMethodCache.BoundLimit limit = limits.get(index);
            if (limit.counting().failuresOnly()) {
                if (cause == null || !limit.counting().failedWith(cause)) {
                    settlements.add(Settlement.refundOf(call));
                }
                continue;
            }
            long cost = frame != null ? frame.given(index) : -1;
            if (cost < 0 && cause == null && limit.costs() != null) {
                cost = costResolvers.cost(limit.costs(), limit.bucket().name(), result).orElse(-1);
            }
            if (cost < 0 && request != null) {
                awaiting.add(call);
            } else {
                settlements.add(new Settlement(call, cost < 0 ? call.cost() : cost, false));
            }
        }
        settle(settlements, recorder);
        if (!awaiting.isEmpty()) {
            request.awaitCost(header -> settle(awaiting.stream()
                    .map(call -> new Settlement(call, header.orElse(call.cost()), false)).toList(), recorder));
        }
    }

    /** Sends the settlements; once they reached the store, the headers report each call's cost corrected. */
    private void settle(List<Settlement> settlements, BiConsumer<Bucket, Verdict> recorder) {
        if (settlements.isEmpty() || !decider.settle(settlements)) {
            return;
        }
        for (Settlement settlement : settlements) {
            CountedCall call = settlement.call();
            if (settlement.settled() != call.cost()) {
                recorder.accept(call.bucket(), Refunds.givenBack(call.bucket(), call.verdict(),
                        call.cost() - settlement.settled()));
            }
        }
    }

    /** The index of the method's limit of {@code bucket}'s name (a planned bucket keeps its name). */
    private static int indexOf(List<RateLimitedMethodCache.BoundLimit> limits, Bucket bucket) {
        for (int i = 0; i < limits.size(); i++) {
            if (limits.get(i).bucket().name().equals(bucket.name())) {
                return i;
            }
        }
        throw new IllegalStateException("no limit of bucket '" + bucket.name() + "' among the method's");
    }
}
