package dev.ratelimiter.internal.cdi.interceptor;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimitException;
import dev.ratelimiter.RateLimitKeyMissingException;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.RateLimiterUnavailableException;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.cdi.call.AppliedLimits;
import dev.ratelimiter.internal.cdi.call.PlanResolvers;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.core.decision.CountedCall;
import dev.ratelimiter.internal.core.decision.RateLimitDecider;
import dev.ratelimiter.internal.core.decision.RawKey;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.enterprise.inject.Intercepted;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Counts each call of a {@link RateLimited} method before it runs, and refuses it with
 * {@link RateLimitExceededException} or, for a fail-closed outage, {@link RateLimiterUnavailableException}: thrown
 * by an ordinary method, as a failed stage by one returning {@code CompletionStage}, as a failure by one returning
 * Mutiny's {@code Uni} or {@code Multi} (counted at each subscription; see {@link ResultType}).
 *
 * <p>The binding is the one the container applied to the intercepted bean (its class, superclasses, stereotypes),
 * resolved once per bean class and method by {@link RateLimitedMethodCache}; a repeated {@code @RateLimited} gives
 * several buckets, decided in declaration order until the first refusal, in one call of the limiter chain (one
 * store round trip where the store allows it: {@link RateLimitDecider#decideAll}). A call for which a bucket has
 * no key (a resolver's {@code null}, no fallback) is refused with {@link RateLimitKeyMissingException} before any
 * bucket counts, delivered like a refusal.
 *
 * <p>A limit whose bucket has a plan resolver is decided under the call's plan: the resolver's answer for the key,
 * cached ({@link PlanResolvers}, docs/plans.md), chosen with the keys before any bucket counts.
 *
 * <p>At {@code PLATFORM_BEFORE + 100}, so it runs before {@code @Transactional} (PLATFORM_BEFORE + 200) and
 * MicroProfile Fault Tolerance: a denied call opens no transaction and is not retried.
 */
@RateLimited(bucket = "")
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class RateLimitedInterceptor {

    /** Outside an HTTP request there is no response to put headers on: verdicts are not recorded. */
    private static final BiConsumer<Bucket, Verdict> NO_REQUEST = (bucket, verdict) -> {
    };

    @Inject
    @Intercepted
    Bean<?> intercepted;

    @Inject
    RateLimitedMethodCache methods;

    @Inject
    RateLimitDecider decider;

    @Inject
    RequestIdentity identity;

    @Inject
    LimiterConfiguration configuration;

    @Inject
    EventLoopWarner eventLoops;

    @Inject
    EventLoopOffload offload;

    @Inject
    NestedCalls nestedCalls;

    @Inject
    PlanResolvers plans;

    @Inject
    CallEnds callEnds;

    @Inject
    SettledCalls settledCalls;

    @Inject
    WaitingCalls waits;

    @Inject
    UpstreamHolds holds;

    @Inject
    CallKeys callKeys;

    @AroundInvoke
    Object limit(InvocationContext context) throws Exception {
        if (!configuration.settings().enabled()) {
            return context.proceed();
        }
        Method method = context.getMethod();
        Class<?> beanClass = intercepted.getBeanClass();
        RateLimitedMethodCache.Binding binding = methods.binding(beanClass, method);
        // Every key is read now, on the calling thread (a Uni may be subscribed where the request context is not
        // active), and before any bucket counts: a call without a key counts nowhere.
        List<RateLimitedMethodCache.BoundLimit> limits = binding.limits();
        RawKey[] keys = new RawKey[limits.size()];
        RateLimitKeyMissingException missing = null;
        for (int i = 0; i < keys.length && missing == null; i++) {
            keys[i] = callKeys.key(limits.get(i), binding.method(), context, beanClass);
            if (keys[i] == null) {
                missing = new RateLimitKeyMissingException(limits.get(i).bucket().name());
            }
        }
        RateLimitKeyMissingException noKey = missing;
        // Each call's limits are chosen now too, by the plan resolvers, with the keys (docs/plans.md)
        Bucket[] planned = binding.planned() && noKey == null ? planned(limits, keys, context) : null;
        // The request's limits through one call of the request-scoped bean's proxy: each costs a context lookup
        AppliedLimits applied = applied();
        BiConsumer<Bucket, Verdict> recorder = applied != null ? applied.recorder() : NO_REQUEST;
        RateLimitedMethod rateLimited = binding.method();
        boolean kept = binding.kept();
        BiConsumer<Bucket, Verdict> replacer = kept && applied != null ? applied.replacer() : NO_REQUEST;
        Bucket first = noKey != null ? null : planned != null ? planned[0] : limits.get(0).bucket();
        boolean simple = !kept && !binding.settles(); // nothing to give back or settle once the call ends
        if (rateLimited.result() == ResultType.UNI && first != null && simple
                && waits.waits(first, limits.get(0).limit().cost())) {
            // Waits without a thread, decided on the library's scheduler: never on the subscribing event loop
            return MutinyResults.waiting(() -> {
                WaitTurn turn = waits.turn(first, keys[0], limits.get(0).limit().cost(), false);
                if (turn.full()) {
                    RateLimitExceededException refused = turn.refusal();
                    turn.finish(refused);
                    return CompletableFuture.failedFuture(refused);
                }
                BiConsumer<Bucket, Verdict> turns = recorder.andThen(turn);
                Bucket[] holding = holds.holding(limits, planned);
                return waits.decidedLater(turn, () -> decide(limits, planned, keys, 0, turns, null, true),
                        () -> holding == null ? MutinyResults.stageOf(context.proceed())
                                : (CompletionStage<?>) holds.proceed(holding, keys,
                                        () -> MutinyResults.stageOf(context.proceed())));
            });
        }
        if (rateLimited.result() == ResultType.UNI || rateLimited.result() == ResultType.MULTI) {
            // Decided at each subscription, on whatever thread subscribes: no nesting on this thread to see
            Function<List<CountedCall>, RuntimeException> decision = noKey != null ? counted -> noKey
                    : counted -> decide(limits, planned, keys, 0, recorder, counted, false);
            return MutinyResults.defer(rateLimited.result(), decision, kept, decider.blocking(), offload,
                    context::proceed, (counted, item, failure) -> callEnds.endElsewhere(limits, counted, item,
                            failure, replacer));
        }
        eventLoops.check(method, decider.blocking());
        int mark = nestedCalls.mark();
        List<CountedCall> counted = kept ? new ArrayList<>(limits.size()) : null;
        SettledCalls.Frame frame = null;
        try {
            // A call nested in one of the same bucket and key on this thread (a bean calling its own method, which
            // ArC intercepts) is not counted again in that bucket: the outer call counted it
            long nested = noKey != null ? 0 : nestedCalls.enter(limits, keys);
            // The costs the method gives (RateLimitCosts), opened even when nothing was counted (a fail-open outage),
            // so that giving one never fails the call; a nested limit's cost goes to the outer call
            frame = binding.settles() ? settledCalls.enter(limits, nested) : null;
            // The first bucket's turn to wait, if its calls wait (docs/guide.md#waiting-instead-of-refusing): a plain
            // method waits on this thread; a CompletionStage one without a thread, when nothing is kept for its end
            boolean waitable = first != null && nested == 0 && (rateLimited.result() == ResultType.PLAIN
                    || rateLimited.result() == ResultType.COMPLETION_STAGE && simple)
                    && waits.waits(first, limits.get(0).limit().cost()); // before asking the thread what it is
            WaitTurn turn = waitable ? waits.turn(first, keys[0], limits.get(0).limit().cost(),
                    rateLimited.result() == ResultType.PLAIN && waits.onEventLoop()) : null;
            RuntimeException refusal = null;
            try {
                if (turn != null && turn.full()) {
                    refusal = turn.refusal();
                } else if (turn != null) {
                    BiConsumer<Bucket, Verdict> turns = recorder.andThen(turn);
                    RateLimitException decided = decide(limits, planned, keys, 0, turns, counted, true);
                    long pause;
                    if (rateLimited.result() == ResultType.COMPLETION_STAGE && (pause = turn.pauseMillis(decided)) >= 0) {
                        WaitTurn waiting = turn;
                        turn = null; // released by the stage, once it runs the method or gives up
                        Bucket[] holding = holds.holding(limits, planned);
                        return waits.later(waiting, decided, pause,
                                () -> decide(limits, planned, keys, 0, turns, null, true),
                                () -> (CompletionStage<?>) (holding == null ? context.proceed()
                                        : holds.proceed(holding, keys, context::proceed)));
                    }
                    refusal = waits.onThisThread(turn, decided, () -> decide(limits, planned, keys, 0, turns, counted,
                            true));
                } else {
                    refusal = noKey != null ? noKey : decide(limits, planned, keys, nested, recorder, counted, false);
                }
            } catch (RuntimeException | Error e) {
                callEnds.abandoned(counted); // an observer of the decision's events threw after a permit was taken
                throw e;
            } finally {
                if (turn != null) {
                    turn.finish(refusal instanceof RateLimitException refused ? refused : null);
                }
            }
            if (rateLimited.result() == ResultType.COMPLETION_STAGE && refusal != null) {
                return CompletableFuture.failedFuture(refusal);
            }
            if (refusal != null) {
                throw refusal;
            }
            List<CountedCall> ended = counted;
            SettledCalls.Frame settled = frame;
            Callable<Object> run = counted == null || counted.isEmpty() ? context::proceed
                    : () -> callEnds.proceed(context, rateLimited.result(), limits, ended, settled, replacer,
                    settled != null ? filtered(applied) : null);
            Bucket[] holding = noKey == null ? holds.holding(limits, planned) : null;
            return holding == null ? run.call() : holds.proceed(holding, keys, run);
        } finally {
            if (frame != null) {
                settledCalls.exit(frame);
            }
            nestedCalls.exit(mark);
        }
    }


    /**
     * Each limit's bucket under the call's plan: the plan resolver's choice for a limit with a planner, the bucket
     * itself for the others (docs/plans.md).
     */
    private Bucket[] planned(List<RateLimitedMethodCache.BoundLimit> limits, RawKey[] keys,
                             InvocationContext context) {
        Bucket[] buckets = new Bucket[limits.size()];
        for (int i = 0; i < buckets.length; i++) {
            RateLimitedMethodCache.BoundLimit limit = limits.get(i);
            if (limit.planner() == null) {
                buckets[i] = limit.bucket();
            } else {
                long cost = limit.limit().cost();
                Bucket cached = plans.cached(limit.planner(), keys[i], cost);
                buckets[i] = cached != null ? cached
                        : plans.resolve(limit.planner(), keys[i], cost, callKeys.callContext(limit, context));
            }
        }
        return buckets;
    }

    /**
     * Decides the buckets in declaration order; the first refusal stops the rest
     * (docs/guide.md#several-limits-on-one-method): later buckets are not counted, earlier ones keep their count.
     * A bucket whose bit is set in {@code nested} is left out: an outer call on this thread counted its key.
     *
     * @return the refusal, or {@code null} when every bucket allowed the call
     */
    private RateLimitException decide(List<RateLimitedMethodCache.BoundLimit> limits, Bucket[] planned,
                                      RawKey[] keys, long nested, BiConsumer<Bucket, Verdict> recorder,
                                      List<CountedCall> counted, boolean firstWaits) {
        if (nested != 0) {
            List<RateLimitedMethodCache.BoundLimit> toCount = new ArrayList<>(keys.length);
            List<Bucket> plannedToCount = new ArrayList<>(keys.length);
            List<RawKey> keysToCount = new ArrayList<>(keys.length);
            for (int i = 0; i < keys.length; i++) {
                if (i >= Long.SIZE || (nested & 1L << i) == 0) {
                    toCount.add(limits.get(i));
                    plannedToCount.add(planned != null ? planned[i] : limits.get(i).bucket());
                    keysToCount.add(keys[i]);
                }
            }
            return keysToCount.isEmpty() ? null
                    : decide(toCount, plannedToCount.toArray(Bucket[]::new),
                    keysToCount.toArray(RawKey[]::new), 0, recorder, counted, false);
        }
        if (keys.length == 1) { // the common case, without the lists of several buckets
            Bucket bucket = planned != null ? planned[0] : limits.get(0).bucket();
            Verdict verdict = decider.decide(bucket, keys[0], limits.get(0).limit().cost(),
                    counted != null && limits.get(0).kept() ? counted : null, firstWaits);
            recorder.accept(bucket, verdict);
            return refusal(bucket, verdict);
        }
        List<Bucket> buckets = new ArrayList<>(keys.length);
        long[] costs = new long[keys.length];
        boolean[] kept = new boolean[keys.length];
        for (int i = 0; i < keys.length; i++) {
            buckets.add(planned != null ? planned[i] : limits.get(i).bucket());
            costs[i] = limits.get(i).limit().cost();
            kept[i] = limits.get(i).kept();
        }
        // One call of the chain for every bucket: one store round trip where the store allows it.
        Verdict[] verdicts = decider.decideAll(buckets, Arrays.asList(keys), costs, kept, counted, firstWaits);
        for (int i = 0; i < verdicts.length; i++) {
            recorder.accept(buckets.get(i), verdicts[i]);
            RateLimitException refusal = refusal(buckets.get(i), verdicts[i]);
            if (refusal != null) {
                return refusal;
            }
        }
        return null;
    }

    private static RateLimitException refusal(Bucket bucket, Verdict verdict) {
        return switch (verdict.outcome()) {
            case DENIED -> new RateLimitExceededException(bucket, verdict);
            case UNAVAILABLE -> new RateLimiterUnavailableException(bucket, verdict);
            default -> null;
        };
    }

    /**
     * This request's limits if the global filter saw the request, so that its response filters run and a settled
     * cost may wait for the response header; else {@code null} (a request context of a job or a listener).
     */
    private AppliedLimits filtered(AppliedLimits applied) {
        if (applied == null) {
            return null;
        }
        try {
            return identity.clientAddress().isPresent() ? applied : null;
        } catch (ContextNotActiveException e) {
            return null;
        }
    }

    /** This request's limits, or {@code null} outside a request; the instance, not the proxy. */
    private AppliedLimits applied() {
        try {
            return identity.applied();
        } catch (ContextNotActiveException e) {
            return null;
        }
    }
}
