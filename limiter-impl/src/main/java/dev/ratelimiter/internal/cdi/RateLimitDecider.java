package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitDenied;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.chain.BatchingLimiter;
import dev.ratelimiter.internal.core.chain.LimiterAssembly;
import dev.ratelimiter.internal.core.chain.ShadowMode;
import dev.ratelimiter.internal.core.key.CounterKeyHasher;
import dev.ratelimiter.internal.core.key.KeyNamespace;
import dev.ratelimiter.internal.core.key.KeyNormalizer;
import dev.ratelimiter.spi.StoreItem;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The one path every decision takes, from the interceptor, the global filter and the {@code RateLimits} facade:
 * normalize the raw key, hash it, count it, and fire {@link RateLimitDenied} on a denial (with the key's
 * HMAC-SHA-256 or SHA-256, whichever hash it was counted under: {@link CounterKeyHasher}). A refusal of a bucket in
 * shadow mode is turned into a verdict that lets the call go on ({@link ShadowMode}), and fires no event:
 * docs/guide.md#shadow-mode.
 */
@ApplicationScoped
public class RateLimitDecider {

    @Inject
    LimiterConfiguration configuration;

    @Inject
    LimiterRuntime runtime;

    @Inject
    Event<RateLimitDenied> denials;

    /**
     * Counts one attempt (cost 1).
     *
     * @return the verdict after the bucket's outage policy; {@code UNAVAILABLE} only for a fail-closed outage. For
     *         a bucket in shadow mode never {@code DENIED} nor {@code UNAVAILABLE}: a refusal comes back
     *         {@code ALLOWED} with {@code remaining} 0 and the window's {@code resetAfter}
     */
    public Verdict decide(Bucket bucket, CharSequence rawKey, KeyNormalization normalization) {
        return decide(bucket, rawKey, normalization, 1);
    }

    /**
     * Decides one call of the given cost in every window of the bucket (docs/guide.md#fixed-windows); a decision
     * is counted once in the metrics, whatever its cost and however many windows the bucket has.
     *
     * @param cost attempts the call counts, from 0 (a check) to the bucket's largest cost
     * @return the verdict after the bucket's outage policy; {@code UNAVAILABLE} only for a fail-closed outage
     * @throws IllegalArgumentException if the cost is negative or above the bucket's largest cost
     */
    public Verdict decide(Bucket bucket, CharSequence rawKey, KeyNormalization normalization, long cost) {
        return decide(bucket, rawKey, normalization, KeyNamespace.APPLICATION, cost);
    }

    /**
     * As {@link #decide(Bucket, CharSequence, KeyNormalization, long)}, for a key of any source: one the library
     * derives from the request (principal, client address) counts apart from an application's key of the same
     * text ({@link KeyNamespace}).
     */
    public Verdict decide(Bucket bucket, KeyResolverInvoker.Key key, long cost) {
        return decide(bucket, key.raw(), key.normalization(), key.namespace(), cost);
    }

    private Verdict decide(Bucket bucket, CharSequence rawKey, KeyNormalization normalization, KeyNamespace namespace,
                           long cost) {
        checkCost(bucket, cost);
        LimiterRuntime.DecisionPath path = runtime.path();
        String normalized = KeyNormalizer.normalize(rawKey, normalization);
        String key = path.assembly().keys().counterKey(namespace, normalized);
        return settle(path, bucket, namespace, normalized, key, path.assembly().limiter().consume(bucket, key, cost));
    }

    /**
     * Decides the buckets of one method with several {@code @RateLimited}, in declaration order, each as
     * {@link #decide(Bucket, CharSequence, KeyNormalization, long)} would, but in one call of the limiter chain, so
     * one store round trip where the store allows it (docs/guide.md#several-limits-on-one-method). The first
     * refusal stops the rest: later buckets are not counted, earlier ones keep their count. A refusal of a bucket in
     * shadow mode does not stop the rest: it is let through, and the later buckets are decided in a further call.
     *
     * @param buckets the buckets, in the order they are decided, at least one
     * @param keys    each bucket's raw key and its normalization, at the same index
     * @param costs   each bucket's cost, at the same index, from 0 to the bucket's largest cost
     * @return one verdict per decided bucket, in order: all {@code ALLOWED} but for the last, which may be the
     *         refusal ({@code DENIED}, or {@code UNAVAILABLE} for a fail-closed outage) that stopped the rest
     * @throws IllegalArgumentException if a cost is negative or above its bucket's largest cost, before anything
     *                                  is counted
     */
    public Verdict[] decideAll(List<Bucket> buckets, List<KeyResolverInvoker.Key> keys, long[] costs) {
        int count = buckets.size();
        LimiterRuntime.DecisionPath path = runtime.path();
        CounterKeyHasher counterKeys = path.assembly().keys();
        String[] normalized = new String[count];
        List<StoreItem> items = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Bucket bucket = buckets.get(i);
            checkCost(bucket, costs[i]);
            normalized[i] = KeyNormalizer.normalize(keys.get(i).raw(), keys.get(i).normalization());
            items.add(new StoreItem(bucket, counterKeys.counterKey(keys.get(i).namespace(), normalized[i]),
                    costs[i]));
        }
        Verdict[] verdicts = new Verdict[count];
        int done = 0;
        while (done < count) {
            Verdict[] decided = BatchingLimiter.consumeAll(path.assembly().limiter(),
                    done == 0 ? items : items.subList(done, count));
            for (Verdict verdict : decided) {
                StoreItem item = items.get(done);
                Verdict answer = settle(path, item.bucket(), keys.get(done).namespace(), normalized[done], item.key(),
                        verdict);
                verdicts[done++] = answer;
                if (answer.outcome() != Verdict.Outcome.ALLOWED) {
                    return done == count ? verdicts : Arrays.copyOf(verdicts, done);
                }
            }
        }
        return verdicts;
    }

    /** What {@link #decide} does with the chain's verdict: shadow mode, the metrics, the denial event. */
    private Verdict settle(LimiterRuntime.DecisionPath path, Bucket bucket, KeyNamespace namespace, String normalized,
                           String key, Verdict verdict) {
        ShadowMode shadow = path.assembly().shadow();
        if (verdict.outcome() != Verdict.Outcome.ALLOWED && shadow.covers(bucket)) {
            return shadow.letThrough(bucket, key, verdict);
        }
        path.metrics().decision(bucket, verdict.outcome());
        if (verdict.outcome() == Verdict.Outcome.DENIED) {
            denials.fire(new RateLimitDenied(bucket, path.assembly().keys().eventKey(namespace, normalized, key),
                    verdict));
        }
        return verdict;
    }

    /**
     * Refuses a cost no call could be allowed with, or a negative one.
     *
     * @throws IllegalArgumentException naming the bucket, the cost and the accepted range
     */
    public static void checkCost(Bucket bucket, long cost) {
        if (cost < 0 || cost > bucket.largestCost()) {
            throw new IllegalArgumentException(costProblem(bucket, cost));
        }
    }

    /** The message for a cost out of range, without the caller's place. */
    static String costProblem(Bucket bucket, long cost) {
        return "cost " + cost + " is out of range for bucket '" + bucket.name() + "': from 0 to "
                + bucket.largestCost() + (bucket.isTokenBucket() ? " (the bucket's smallest capacity: its burst, or a "
                + "longer window's limit)" : " (the bucket's smallest limit)");
    }

    /**
     * Whether a decision may wait on the network or a lock (the store says so: {@code RateLimitStore.blocking()}),
     * so must not run on a thread that may not block, such as a Vert.x event loop. In-memory decisions never block.
     */
    public boolean blocking() {
        return runtime.path().assembly().blocking();
    }

    /**
     * Clears the counter of one key an application names ({@link KeyNamespace#APPLICATION}: the one a
     * {@code @RateLimitKey} parameter or a resolver's key counts under); never throws for a backend failure.
     */
    public void reset(Bucket bucket, CharSequence rawKey, KeyNormalization normalization) {
        LimiterAssembly assembly = runtime.path().assembly();
        assembly.limiter().reset(bucket, assembly.keys().counterKey(KeyNamespace.APPLICATION,
                KeyNormalizer.normalize(rawKey, normalization)));
    }

    /**
     * The configured bucket.
     *
     * @throws IllegalArgumentException naming the properties to set, if the bucket is not configured
     */
    public Bucket bucket(String name) {
        return configuration.settings().bucket(name).orElseThrow(() -> new IllegalArgumentException(
                "bucket '" + name + "' is not configured; set ratelimiter.buckets." + name
                        + ".limit and ratelimiter.buckets." + name + ".window, or ratelimiter.buckets." + name
                        + ".limits (a bucket injected as @BucketName(\"" + name + "\") RateLimitBucket is checked "
                        + "when the application starts)"));
    }
}
