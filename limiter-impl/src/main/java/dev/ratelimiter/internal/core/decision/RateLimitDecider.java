package dev.ratelimiter.internal.core.decision;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitDenied;
import dev.ratelimiter.RateLimitNearLimit;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.chain.BatchingLimiter;
import dev.ratelimiter.internal.core.chain.BlockLimiter;
import dev.ratelimiter.internal.core.chain.LimiterAssembly;
import dev.ratelimiter.internal.core.chain.ShadowMode;
import dev.ratelimiter.internal.core.key.CounterKeyHasher;
import dev.ratelimiter.internal.core.key.KeyLists.Listing;
import dev.ratelimiter.internal.core.key.KeyNamespace;
import dev.ratelimiter.internal.core.key.KeyNormalizer;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import dev.ratelimiter.spi.StoreItem;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The one path every decision takes, from the interceptor, the global filter and the {@code RateLimits} facade:
 * normalize the raw key, hash it, count it, and report a {@link RateLimitDenied} on a denial (with the key's
 * HMAC-SHA-256 or SHA-256, whichever hash it was counted under: {@link CounterKeyHasher}), which the CDI layer fires
 * as an event. A refusal of a bucket in shadow mode is turned into a verdict that lets the call go on
 * ({@link ShadowMode}), and reports nothing: docs/guide.md#shadow-mode. The bucket's lists come first: a denied key
 * is refused with no store call, an allowed one is never refused, and neither fires an event ({@link DecisionReports}).
 * What follows a verdict (shadow mode, metrics, events) is {@link DecisionOutcomes}'; what waits and holds ask of the
 * path is {@link WaitDecisions}'; a call's cost range is {@link CallCosts}'.
 *
 * <p>Plain Java: one instance per application, built on the runtime's {@link DecisionSource}; safe for concurrent
 * use. Not final, with a protected no-argument constructor, so CDI can proxy it as an {@code @ApplicationScoped}
 * bean.
 */
public class RateLimitDecider {

    private final DecisionSource source;
    private final Settlements settlements;
    private final WaitDecisions waits;
    private final Supplier<LimiterSettings> settings;
    private final DecisionOutcomes outcomes;

    /**
     * @param source     the chain and the clock, asked once per decision
     * @param settings   the settings in force, reloaded ones included (docs/live-limits.md): the configured buckets
     *                   and the near-limit share
     * @param denials    told of each denial, on the deciding thread (in a server: the CDI event
     *                   {@code RateLimitDenied})
     * @param nearLimits told of each call that takes a key below the near-limit share of a window, on the deciding
     *                   thread (in a server: the CDI event {@code RateLimitNearLimit}; docs/guide.md#near-the-limit)
     */
    public RateLimitDecider(DecisionSource source, Supplier<LimiterSettings> settings,
                            Consumer<RateLimitDenied> denials, Consumer<RateLimitNearLimit> nearLimits) {
        this.source = source;
        this.settlements = new Settlements(source);
        this.waits = new WaitDecisions(source);
        this.settings = settings;
        this.outcomes = new DecisionOutcomes(settings, denials, nearLimits);
    }

    /** For a CDI client proxy, which subclasses a normal-scoped bean's type; not for deciding. */
    protected RateLimitDecider() {
        this(null, null, null, null);
    }

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
        return decide(bucket, rawKey, normalization, KeyNamespace.APPLICATION, cost, null, false);
    }

    /**
     * As {@link #decide(Bucket, CharSequence, KeyNormalization, long)}, for a key of any source: one the library
     * derives from the request (principal, client address) counts apart from an application's key of the same
     * text ({@link KeyNamespace}).
     */
    public Verdict decide(Bucket bucket, RawKey key, long cost) {
        return decide(bucket, key.raw(), key.normalization(), key.namespace(), cost, null, false);
    }

    /**
     * As {@link #decide(Bucket, RawKey, long)}, for a bucket that counts failures only or settles costs after the
     * call: a call it counted is added to {@code counted}, to be given back by {@link #refund} if the call succeeds
     * (docs/guide.md#counting-failures-only) or settled by {@link #settle} once it has run.
     *
     * @param counted where the counted call goes; nothing is added for a refusal, a cost of 0, a call a fail-open
     *                policy let through uncounted, or a shadow bucket's refusal let through
     */
    public Verdict decide(Bucket bucket, RawKey key, long cost, List<CountedCall> counted) {
        return decide(bucket, key.raw(), key.normalization(), key.namespace(), cost, counted, false);
    }

    /**
     * As {@link #decide(Bucket, RawKey, long, List)}, for a caller that waits for a reservation
     * (docs/guide.md#waiting-instead-of-refusing): a bucket that reserves ({@link Bucket#reserves()}) may then admit
     * the call with a wait ({@code Reservations.waitOf}). Every other decision gives a reservation back and refuses
     * the call instead, its wait as {@code resetAfter}: its caller would run it at once.
     *
     * @param counted  where the counted call goes, as the method above; {@code null}: none kept
     * @param mayWait  whether the caller waits for a reservation
     * @return the verdict, as the methods above give it; an allowed one may carry a wait only when {@code mayWait}
     * @throws IllegalArgumentException if the cost is negative or more than any of the bucket's windows holds
     */
    public Verdict decide(Bucket bucket, RawKey key, long cost, List<CountedCall> counted, boolean mayWait) {
        return decide(bucket, key.raw(), key.normalization(), key.namespace(), cost, counted, mayWait);
    }

    private Verdict decide(Bucket bucket, CharSequence rawKey, KeyNormalization normalization, KeyNamespace namespace,
                           long cost, List<CountedCall> counted, boolean mayWait) {
        CallCosts.check(bucket, cost);
        DecisionPath path = source.path();
        String normalized = KeyNormalizer.normalize(rawKey, normalization);
        Listing listing = DecisionReports.listing(path, bucket, normalized, normalization);
        if (listing == Listing.DENIED) {
            return DecisionReports.denyListed(path, bucket);
        }
        String key = path.assembly().keys().counterKey(namespace, normalized);
        long decidedAt = counted != null ? source.clock().millis() : 0;
        DecisionReports.arm(path);
        Verdict verdict = bucket.isConcurrency()
                ? PermitTakes.take(path, bucket, key, cost, decidedAt, counted)
                : path.assembly().limiter().consume(bucket, key, cost);
        if ((!mayWait || listing == Listing.ALLOWED) && bucket.reserves()) { // an allowed key never waits
            verdict = Settlements.unreserved(path, bucket, key, cost, verdict);
        }
        boolean fallback = DecisionReports.fellBack(path, bucket);
        if (counted != null && !bucket.isConcurrency()) {
            keepCounted(path, new StoreItem(bucket, key, cost), verdict, decidedAt, counted);
        }
        if (listing == Listing.ALLOWED && !verdict.isAllowed()) {
            return DecisionReports.allowListed(path, bucket, verdict, fallback);
        }
        return outcomes.report(path, bucket, namespace, normalized, key, cost, counted == null && !bucket.isConcurrency(),
                verdict, fallback);
    }

    /** Adds the call to {@code counted} if the chain counted it somewhere, so it has something to give back. */
    private static void keepCounted(DecisionPath path, StoreItem item, Verdict verdict, long decidedAt,
                                    List<CountedCall> counted) {
        if (item.cost() > 0 && path.assembly().limiter() instanceof BlockLimiter chain
                && chain.counted(item.bucket(), verdict)) {
            counted.add(new CountedCall(item.bucket(), item.key(), item.cost(), verdict, decidedAt));
        }
    }

    /**
     * Gives the counted calls' costs back, in one store round trip where the store allows it: each to the windows
     * it was counted in, never to a later one (docs/guide.md#counting-failures-only). Each is counted in the
     * metrics as given or dropped; never throws, and never sends a refund again.
     *
     * @param counted calls {@link #decide(Bucket, RawKey, long, List)} counted; may be empty
     * @return whether they were given back (false: dropped, and counted so)
     */
    public boolean refund(List<CountedCall> counted) {
        return settle(counted.stream().map(Settlement::refundOf).toList());
    }

    /**
     * Settles counted calls at the costs they turned out to have (docs/guide.md#costs-settled-after-the-call), and
     * gives failures-only refunds back, in one store round trip where the store allows it; as {@link #refund}, never
     * throws and never sends one again.
     *
     * @param settlements the calls and their actual costs; may be empty
     * @return whether they reached the store or the fallback (false: dropped, and counted so)
     */
    public boolean settle(List<Settlement> settlements) {
        return this.settlements.settle(settlements);
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
    public Verdict[] decideAll(List<Bucket> buckets, List<RawKey> keys, long[] costs) {
        return decideAll(buckets, keys, costs, null, null, false);
    }

    /**
     * As {@link #decideAll(List, List, long[])}, keeping the calls counted in the buckets that count failures only
     * or settle their cost after the call in {@code counted}, as {@link #decide(Bucket, RawKey, long, List)} does.
     *
     * @param kept    for each bucket, at the same index, whether it counts failures only or settles its cost after
     *                the call, so its counted call is kept; {@code null}: none
     * @param counted where the counted calls of those buckets go; {@code null}: none kept
     * @param firstWaits whether the caller waits for a reservation of the first bucket, as
     *                {@link #decide(Bucket, RawKey, long, List, boolean)}; every other bucket's reservation is given
     *                back and refused (docs/guide.md#waiting-instead-of-refusing)
     */
    public Verdict[] decideAll(List<Bucket> buckets, List<RawKey> keys, long[] costs,
                               boolean[] kept, List<CountedCall> counted, boolean firstWaits) {
        int count = buckets.size();
        DecisionPath path = source.path();
        CounterKeyHasher counterKeys = path.assembly().keys();
        String[] normalized = new String[count];
        Listing[] listings = new Listing[count];
        List<StoreItem> items = new ArrayList<>(count);
        int decidable = count; // the buckets before the first whose deny list holds its key: the store decides those
        for (int i = 0; i < count; i++) {
            Bucket bucket = buckets.get(i);
            CallCosts.check(bucket, costs[i]);
            PermitTakes.checkKept(bucket, costs[i], counted); // before anything is counted
            normalized[i] = KeyNormalizer.normalize(keys.get(i).raw(), keys.get(i).normalization());
            listings[i] = DecisionReports.listing(path, bucket, normalized[i], keys.get(i).normalization());
            if (listings[i] == Listing.DENIED && decidable == count) {
                decidable = i;
            }
            items.add(new StoreItem(bucket, counterKeys.counterKey(keys.get(i).namespace(), normalized[i]),
                    costs[i]));
        }
        Verdict[] verdicts = new Verdict[count];
        int done = 0;
        long decidedAt = counted != null ? source.clock().millis() : 0;
        int permitsFrom = counted != null ? counted.size() : 0; // this call's permits, given back if it is refused
        while (done < decidable) {
            DecisionReports.arm(path);
            // A concurrency bucket's permit is a take of its own; the rate buckets between two are decided together
            int end = done;
            while (end < decidable && !buckets.get(end).isConcurrency()) {
                end++;
            }
            StoreItem first = items.get(done);
            Verdict[] decided = end == done
                    ? new Verdict[] {PermitTakes.take(path, first.bucket(), first.key(), first.cost(), decidedAt,
                            counted)}
                    : BatchingLimiter.consumeAll(path.assembly().limiter(),
                            done == 0 && end == count ? items : items.subList(done, end));
            for (Verdict verdict : decided) {
                StoreItem item = items.get(done);
                if ((done > 0 || !firstWaits || listings[done] == Listing.ALLOWED) && item.bucket().reserves()) {
                    verdict = Settlements.unreserved(path, item.bucket(), item.key(), item.cost(), verdict);
                }
                boolean permit = item.bucket().isConcurrency();
                boolean fallback = DecisionReports.fellBack(path, item.bucket());
                if (counted != null && kept[done] && !permit) {
                    keepCounted(path, item, verdict, decidedAt, counted);
                }
                Verdict answer = listings[done] == Listing.ALLOWED && !verdict.isAllowed()
                        ? DecisionReports.allowListed(path, item.bucket(), verdict, fallback)
                        : outcomes.report(path, item.bucket(), keys.get(done).namespace(), normalized[done], item.key(),
                                item.cost(), !permit && (kept == null || !kept[done]), verdict, fallback);
                verdicts[done++] = answer;
                if (answer.outcome() != Verdict.Outcome.ALLOWED) {
                    PermitTakes.refused(path, counted, permitsFrom);
                    return done == count ? verdicts : Arrays.copyOf(verdicts, done);
                }
            }
        }
        if (decidable < count) {
            PermitTakes.refused(path, counted, permitsFrom);
            verdicts[done++] = DecisionReports.denyListed(path, buckets.get(decidable));
        }
        return done == count ? verdicts : Arrays.copyOf(verdicts, done);
    }

    /**
     * An application key's quota in the bucket, read without spending it: the chain's answer to a call of cost 0
     * (which counts nothing and is refused exactly when a call of cost 1 would be), with none of a decision's
     * effects: no metrics, no denial event, no shadow mode (docs/guide.md#reading-a-keys-quota).
     *
     * @param bucket        the bucket, under the key's plan
     * @param rawKey        the raw key
     * @param normalization how it is normalized before it is hashed
     * @return the verdict after the bucket's outage policy; {@code UNAVAILABLE} only for a fail-closed outage; for a
     *         key on the bucket's deny list {@link Verdict#denyListed}, and for one on its allow list never a refusal
     */
    public Verdict usage(Bucket bucket, CharSequence rawKey, KeyNormalization normalization) {
        DecisionPath path = source.path();
        String normalized = KeyNormalizer.normalize(rawKey, normalization);
        Listing listing = DecisionReports.listing(path, bucket, normalized, normalization);
        if (listing == Listing.DENIED) {
            return DecisionReports.refusal(bucket);
        }
        String key = path.assembly().keys().counterKey(KeyNamespace.APPLICATION, normalized);
        Verdict verdict = bucket.isConcurrency() ? PermitTakes.take(path, bucket, key, 0, 0, null)
                : path.assembly().limiter().consume(bucket, key, 0);
        if (bucket.reserves()) { // calls queued for the key's tokens: what a call of cost 1 that cannot wait meets
            verdict = Settlements.unreserved(path, bucket, key, 0, verdict);
        }
        return listing == Listing.ALLOWED && !verdict.isAllowed() ? DecisionReports.letThrough(verdict) : verdict;
    }

    /**
     * What the waits of {@code @RateLimited} calls and their upstream's holds ask of the decision path
     * (docs/guide.md#waiting-instead-of-refusing, docs/guide.md#holds-from-the-upstream).
     *
     * @return the waits' decisions on this decider's path
     */
    public WaitDecisions waits() {
        return waits;
    }


    /**
     * Whether a decision may wait on the network or a lock (the store says so: {@code RateLimitStore.blocking()}),
     * so must not run on a thread that may not block, such as a Vert.x event loop. In-memory decisions never block.
     */
    public boolean blocking() {
        return source.path().assembly().blocking();
    }

    /**
     * Clears the counter of one key an application names ({@link KeyNamespace#APPLICATION}: the one a
     * {@code @RateLimitKey} parameter or a resolver's key counts under); never throws for a backend failure.
     */
    public void reset(Bucket bucket, CharSequence rawKey, KeyNormalization normalization) {
        LimiterAssembly assembly = source.path().assembly();
        assembly.limiter().reset(bucket, assembly.keys().counterKey(KeyNamespace.APPLICATION,
                KeyNormalizer.normalize(rawKey, normalization)));
    }

    /**
     * The configured bucket.
     *
     * @throws IllegalArgumentException naming the properties to set, if the bucket is not configured
     */
    public Bucket bucket(String name) {
        return settings.get().bucket(name).orElseThrow(() -> new IllegalArgumentException(
                "bucket '" + name + "' is not configured; set ratelimiter.buckets." + name
                        + ".limit and ratelimiter.buckets." + name + ".window, or ratelimiter.buckets." + name
                        + ".limits (a bucket injected as @BucketName(\"" + name + "\") RateLimitBucket is checked "
                        + "when the application starts)"));
    }
}
