package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitCostResolver;
import dev.ratelimiter.RateLimitCosts;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Methods whose cost in the bucket {@code tokens} is settled after the call
 * (docs/guide.md#costs-settled-after-the-call): a stand-in for a language model's endpoint, which learns the tokens
 * a call used only from the model's answer.
 */
@ApplicationScoped
public class SettledCostService {

    /** A model's answer, with the tokens it used. */
    public record Answer(String text, long tokens) {
    }

    /** Reads the tokens an {@link Answer} used; any other result tells nothing. */
    @ApplicationScoped
    public static class AnswerTokens implements RateLimitCostResolver {
        @Override
        public OptionalLong cost(String bucket, Object result) {
            return result instanceof Answer answer ? OptionalLong.of(answer.tokens()) : OptionalLong.empty();
        }
    }

    @Inject
    RateLimitCosts costs;

    @Inject
    NestedSettledService nested;

    /** Reads a cost from any result by throwing a checked exception, as a careless resolver might. */
    @ApplicationScoped
    public static class SneakyThrowingTokens implements RateLimitCostResolver {
        @Override
        public OptionalLong cost(String bucket, Object result) {
            return SettledCostService.<RuntimeException>sneaky(new java.io.IOException("the usage log is gone"));
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Exception> OptionalLong sneaky(Exception e) throws E {
        throw (E) e;
    }

    /** Gives nothing itself: the nested call of the same bucket and key gives the cost, which comes here. */
    @RateLimited(bucket = "tokens", settle = true)
    public String outer(@RateLimitKey String tenant, long used) {
        return nested.inner(tenant, used);
    }

    /** Its resolver throws a checked exception: the call's result reaches the caller, the reservation stands. */
    @RateLimited(bucket = "tokens", cost = 2, settle = true, costResolver = SneakyThrowingTokens.class)
    public Answer answerWithBrokenResolver(@RateLimitKey String tenant) {
        return new Answer("ok", 50);
    }

    /** Gives the tokens used from inside the method. */
    @RateLimited(bucket = "tokens", settle = true)
    public String complete(@RateLimitKey String tenant, long used) {
        costs.settle(used);
        return "ok";
    }

    /** Reserves 5 and never says what it used: the reservation stands. */
    @RateLimited(bucket = "tokens", cost = 5, settle = true)
    public String silent(@RateLimitKey String tenant) {
        return "ok";
    }

    /** Gives the tokens used, then fails: they were spent all the same. */
    @RateLimited(bucket = "tokens", settle = true)
    public String completeThenFail(@RateLimitKey String tenant, long used) {
        costs.settle(used);
        throw new IllegalStateException("the model's connection dropped");
    }

    /** The tokens read from the answer by the resolver. */
    @RateLimited(bucket = "tokens", settle = true, costResolver = AnswerTokens.class)
    public Answer answer(@RateLimitKey String tenant, long used) {
        return new Answer("ok", used);
    }

    /** As {@link #answer}, completing later on another thread. */
    @RateLimited(bucket = "tokens", settle = true, costResolver = AnswerTokens.class)
    public CompletionStage<Answer> answerLater(@RateLimitKey String tenant, long used) {
        return CompletableFuture.supplyAsync(() -> new Answer("ok", used));
    }

    /** As {@link #answer}, as a {@code Uni}. */
    @RateLimited(bucket = "tokens", settle = true, costResolver = AnswerTokens.class)
    public Uni<Answer> answerUni(@RateLimitKey String tenant, long used) {
        return Uni.createFrom().item(() -> new Answer("ok", used));
    }

    /** Tokens settled, requests counted 1 each as usual. */
    @RateLimited(bucket = "tokens", settle = true)
    @RateLimited(bucket = "requests")
    public String both(@RateLimitKey String tenant, long used) {
        costs.settle("tokens", used);
        return "ok";
    }

    /** A settled method that gives its cost through the response header of the request it serves. */
    @RateLimited(bucket = "tokens", settle = true)
    public String viaHeader(@RateLimitKey String tenant) {
        return "ok";
    }

    /** Counts {@code entered} down once let in, then waits for {@code release} before it gives what it used. */
    @RateLimited(bucket = "tokens", settle = true)
    public String held(@RateLimitKey String tenant, long used, CountDownLatch entered, CountDownLatch release)
            throws InterruptedException {
        entered.countDown();
        if (!release.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("never released");
        }
        costs.settle(used);
        return "ok";
    }

    /** Not a settled method: giving a cost here is a mistake. */
    @RateLimited(bucket = "requests")
    public String notSettled(@RateLimitKey String tenant, long used) {
        costs.settle(used);
        return "ok";
    }

    /** Names a bucket the call does not settle. */
    @RateLimited(bucket = "tokens", settle = true)
    public String wrongBucket(@RateLimitKey String tenant) {
        costs.settle("requests", 3);
        return "ok";
    }
}
