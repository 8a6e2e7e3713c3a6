package dev.ratelimiter.internal.cdi.interceptor;

import dev.ratelimiter.internal.core.decision.CountedCall;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The decision of a {@code Uni} or {@code Multi} method, made at each subscription: a refusal is the failure of
 * the method's own type, and the method runs only once the attempt is allowed, so a resubscription (a retry)
 * counts again. Loaded only for a method whose result type is Mutiny's, so never where Mutiny is absent.
 */
final class MutinyResults {

    private MutinyResults() {
    }

    /** How a subscription's {@code Uni} or {@code Multi} ended, with the calls it counted. */
    @FunctionalInterface
    interface Outcome {
        /**
         * @param counted the subscription's counted calls
         * @param item    the {@code Uni}'s item; {@code null} for a failure or a {@code Multi}
         * @param failure the failure; {@code null} for an item or a completion
         */
        void ended(List<CountedCall> counted, Object item, Throwable failure);
    }

    /**
     * @param decision     counts one attempt, adding the calls failures-only buckets counted to the list it is given,
     *                     and returns the refusal to fail with, or {@code null} if allowed
     * @param kept         whether a bucket of the method counts failures only or settles its cost after the call, so
     *                     its outcome is watched
     * @param blocking     whether the decision makes a network round trip, so must leave an event loop
     * @param proceed      runs the method, returning its {@code Uni} or {@code Multi}
     * @param outcome      told, once the subscription's {@code Uni} or {@code Multi} ends, its item and failure
     *                     with that subscription's counted calls; of a cancellation, with its permits only
     *                     (a concurrency bucket's, given back), whose other calls stay
     *                     counted (docs/guide.md#counting-failures-only)
     */
    static Object defer(ResultType type, Function<List<CountedCall>, RuntimeException> decision,
                        boolean kept, boolean blocking, EventLoopOffload offload, Callable<Object> proceed,
                        Outcome outcome) {
        Uni<Decided> allowed = Uni.createFrom().emitter(emitter -> {
            List<CountedCall> counted = kept ? new ArrayList<>(1) : null;
            AtomicBoolean delivered = new AtomicBoolean(); // this subscription's calls reached the method's Uni
            if (counted != null) {
                // Ended without reaching the method: cancelled while the decision waited for the store (a timeout),
                // or the decision failed after it took a permit (an observer of its events threw); a permit taken
                // for it goes back, as no call runs for it (a refusal's went back already: given back once more,
                // which frees nothing)
                emitter.onTermination(() -> {
                    if (!delivered.get()) {
                        givePermitsBack(counted, outcome);
                    }
                });
            }
            Decided decided = new Decided(counted, delivered);
            Supplier<RuntimeException> decide = () -> decision.apply(counted);
            if (!blocking || !offload.offload(decide, (refusal, failure) -> settle(emitter, decided, refusal,
                    failure))) {
                RuntimeException refusal;
                try {
                    refusal = decide.get();
                } catch (RuntimeException e) {
                    settle(emitter, decided, null, e);
                    return;
                }
                settle(emitter, decided, refusal, null);
            }
        });
        if (type == ResultType.MULTI) {
            return allowed.onItem().transformToMulti(decided -> {
                decided.delivered().set(true);
                List<CountedCall> counted = decided.counted();
                Multi<?> multi;
                try {
                    multi = (Multi<?>) proceed.call();
                } catch (Exception e) {
                    multi = Multi.createFrom().failure(e);
                }
                return counted == null || counted.isEmpty() ? multi : multi.onTermination().invoke(
                        (failure, cancelled) -> {
                            if (!cancelled) {
                                outcome.ended(counted, null, failure);
                            } else {
                                givePermitsBack(counted, outcome);
                            }
                        });
            });
        }
        return allowed.onItem().transformToUni(decided -> {
            decided.delivered().set(true);
            List<CountedCall> counted = decided.counted();
            Uni<?> uni;
            try {
                uni = (Uni<?>) proceed.call();
            } catch (Exception e) {
                uni = Uni.createFrom().failure(e);
            }
            return counted == null || counted.isEmpty() ? uni
                    : uni.onItemOrFailure().invoke((item, failure) -> outcome.ended(counted, item, failure))
                    .onCancellation().invoke(() -> givePermitsBack(counted, outcome));
        });
    }

    /**
     * A {@code Uni} of a method whose first bucket waits (docs/guide.md#waiting-instead-of-refusing): at each
     * subscription, the stage {@code waited} gives, which decides, waits and runs the method without a thread.
     */
    static Object waiting(Supplier<CompletionStage<Object>> waited) {
        return Uni.createFrom().completionStage(waited);
    }

    /** The method's {@code Uni} as a stage, subscribed to. */
    static CompletionStage<?> stageOf(Object uni) {
        return ((Uni<?>) uni).subscribeAsCompletionStage();
    }

    /**
     * A subscription cancelled, or one whose decision failed or never reached the method: its counts stay as they
     * were, but a concurrency bucket's permits are given back, since no call runs for them (any more)
     * (docs/guide.md#concurrency-limits).
     */
    private static void givePermitsBack(List<CountedCall> counted, Outcome outcome) {
        List<CountedCall> permits = counted.stream().filter(CountedCall::isPermit).toList();
        if (!permits.isEmpty()) {
            outcome.ended(permits, null, new CancellationException("no call runs for it"));
        }
    }

    /** One subscription's decision: its counted calls, and whether they reached the method's own Uni or Multi. */
    private record Decided(List<CountedCall> counted, AtomicBoolean delivered) {
    }

    private static void settle(UniEmitter<? super Decided> emitter, Decided decided, RuntimeException refusal,
                               Throwable failure) {
        if (failure != null) {
            emitter.fail(failure);
        } else if (refusal != null) {
            emitter.fail(refusal);
        } else {
            emitter.complete(decided);
        }
    }
}
