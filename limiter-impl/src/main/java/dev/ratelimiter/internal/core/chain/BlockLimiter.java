package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.internal.core.monitor.DecisionMarks;
import dev.ratelimiter.internal.core.settings.BlockSettings;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreRefund;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Blocks after a refusal (docs/guide.md#blocks-after-a-refusal), on top of the outage chain, made of what every store
 * already counts, so every store and algorithm has them and the refusal cache and the fallback treat them as any
 * count.
 *
 * <p>A key's block is a fixed window of limit 1 under the bucket's name and the key followed by {@link #BLOCK}
 * (a hashed key is base64url or hex, so no key of a call ends so). Each call of a bucket with a block asks it first,
 * at cost 0 and in the same call of the chain as the bucket's own item: while the window is open the store refuses
 * the check, and the call is refused until the window ends, with the bucket's limit, nothing remaining and the block's
 * end as its reset. When the bucket's limits refuse a call of cost 1 or more, a second call of the chain counts 1 in
 * the block's window, opened for the longest block and, by the call that opened it, brought to the block's length
 * (a window read under a shorter length ends within it): every replica refuses the key from then on. Checks and
 * the count that opens a block use the longest block as the window's length, so neither ever shortens a block, and a
 * call that lost the race to set one leaves the winner's as it is. Lowering {@code block-max} live shortens the
 * blocks in force where the store shortens a window at a check (memory, Valkey; PostgreSQL writes nothing at a
 * check, so a block there keeps its end).
 *
 * <p>Blocks that grow count the key's earlier blocks in a second fixed window (the key followed by {@link #BLOCKS}),
 * read only when a block is about to be set: the new block lasts the first one doubled once per earlier block, and the
 * count's window is then opened afresh to end {@code forget-after} after the new block ends, so the count is
 * forgotten after that long without a block. Two replicas that refuse the key at once set one block: the second one's
 * count in the block's window is refused, and it answers with the block the first set. A reset of the bucket's key
 * (a successful login) lifts the block and forgets the count.
 *
 * <p>While the store fails, the block's items follow the bucket's outage policy, as its own does: the fallback per
 * process has the blocks the store reported to it ({@code MemoryRateLimiter.carry}) and sets its own.
 */
public final class BlockLimiter implements BatchingLimiter, PermitsPassThrough {

    /** What follows a hashed key in its block's key. */
    public static final String BLOCK = ".block";
    /** What follows a hashed key in the key of its earlier blocks' count. */
    public static final String BLOCKS = ".blocks";

    private final Limiter chain;
    private final DecisionMarks marks;
    private volatile Map<String, BlockSettings> blocks;
    // The derived buckets, made once per bucket, settings and length: a check costs no allocation of a bucket.
    private final Map<Derived, Bucket> derived = new ConcurrentHashMap<>();

    /**
     * @param chain  the outage chain, which decides every item, the blocks' among them
     * @param blocks each bucket's block, by name, where it has one
     * @param marks  told of each refusal by a block, for the trace
     */
    public BlockLimiter(Limiter chain, Map<String, BlockSettings> blocks, DecisionMarks marks) {
        this.chain = Objects.requireNonNull(chain, "chain");
        this.marks = Objects.requireNonNull(marks, "marks");
        this.blocks = Map.copyOf(blocks);
    }

    /** Puts these blocks, and only these, in force from the next call: a reload's (docs/live-limits.md). */
    public void update(Map<String, BlockSettings> blocks) {
        this.blocks = Map.copyOf(blocks);
        derived.clear();
    }

    /**
     * Whether an item is a call of its own, for the outage counts: a block's check (cost 0) stands for its bucket's
     * call, which it precedes; setting a block and counting earlier blocks are no calls. The item after a check, the
     * call's own, is the outage policy's to leave uncounted ({@link #checkedKey}).
     */
    public static boolean callOf(String key, long cost) {
        return !key.endsWith(BLOCKS) && !(cost > 0 && key.endsWith(BLOCK));
    }

    /** {@return the key of the call a block's check stands for, or {@code null} for any other key} */
    public static String checkedKey(String key) {
        return key.endsWith(BLOCK) ? key.substring(0, key.length() - BLOCK.length()) : null;
    }

    /** {@return the outage chain under the blocks} */
    public Limiter chain() {
        return chain;
    }

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        Map<String, BlockSettings> current = blocks;
        BlockSettings block = current.isEmpty() ? null : current.get(bucket.name());
        if (block == null) {
            return chain.consume(bucket, key, cost);
        }
        return consumeAll(List.of(new StoreItem(bucket, key, cost)))[0];
    }

    @Override
    public Verdict[] consumeAll(List<StoreItem> items) {
        Map<String, BlockSettings> current = blocks;
        if (current.isEmpty() || !anyBlocked(items, current)) {
            return BatchingLimiter.consumeAll(chain, items);
        }
        List<StoreItem> asked = new ArrayList<>(items.size() * 2);
        BlockSettings[] settings = new BlockSettings[items.size()];
        for (int i = 0; i < settings.length; i++) {
            StoreItem item = items.get(i);
            settings[i] = current.get(item.bucket().name());
            if (settings[i] != null) {
                asked.add(new StoreItem(bucket(item.bucket(), Kind.BLOCK, settings[i].longest()),
                        item.key() + BLOCK, 0));
            }
            asked.add(item);
        }
        Verdict[] decided = BatchingLimiter.consumeAll(chain, asked);
        Verdict[] answers = new Verdict[settings.length];
        int at = 0;
        for (int i = 0; i < settings.length; i++) {
            StoreItem item = items.get(i);
            if (settings[i] != null) {
                Verdict check = decided[at++];
                if (check.outcome() != Verdict.Outcome.ALLOWED) {
                    answers[i] = check.outcome() == Verdict.Outcome.DENIED ? blocked(item.bucket(), check.resetAfter())
                            : Verdict.unavailable(item.bucket().limit(), check.resetAfter());
                    return Arrays.copyOf(answers, i + 1);
                }
            }
            Verdict verdict = decided[at++];
            answers[i] = settings[i] != null && settings[i].blocksAfterRefusal()
                    && verdict.outcome() == Verdict.Outcome.DENIED && item.cost() > 0
                    ? block(item, settings[i], verdict) : verdict;
            if (answers[i].outcome() != Verdict.Outcome.ALLOWED) {
                return Arrays.copyOf(answers, i + 1);
            }
        }
        return answers;
    }

    private static boolean anyBlocked(List<StoreItem> items, Map<String, BlockSettings> current) {
        for (int i = 0; i < items.size(); i++) {
            if (current.containsKey(items.get(i).bucket().name())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Sets the key's block after the bucket's limits refused it: the block's answer, or the limits' refusal as it
     * was if the block could not be set (the store failed, and the outage policy did not count it: fail open).
     */
    private Verdict block(StoreItem item, BlockSettings settings, Verdict refusal) {
        Bucket bucket = item.bucket();
        String key = item.key() + BLOCK;
        long earlier = 0;
        if (settings.escalates()) {
            Bucket count = bucket(bucket, Kind.COUNT, settings.max().plus(settings.forgetAfter()));
            Verdict counted = chain.consume(count, item.key() + BLOCKS, 0);
            earlier = counted.outcome() == Verdict.Outcome.UNAVAILABLE ? 0
                    : Math.min(count.limit() - counted.remaining(), settings.doublings());
        }
        Duration length = settings.length(earlier);
        // Opened for the longest block, so that a call that lost the race to set it (refused here) cannot shorten
        // the block the winner set, whatever length it reckoned.
        Bucket longest = bucket(bucket, Kind.BLOCK, settings.longest());
        Verdict set = chain.consume(longest, key, 1);
        if (set.outcome() == Verdict.Outcome.DENIED) {
            return blocked(bucket, set.resetAfter()); // another call set it first
        }
        if (!counted(longest, set)) {
            return refusal; // the store failed and nothing set it (fail open, or fail closed)
        }
        if (length.compareTo(settings.longest()) < 0) {
            // Only the call that set it brings it to its length: a call that reads the window under a shorter one
            // ends it within that from now (docs/stores.md#counters-across-a-change-of-settings), refused at its 1.
            chain.consume(bucket(bucket, Kind.BLOCK, length), key, 1);
        }
        if (settings.escalates()) {
            // Opened afresh, so that the count is forgotten forget-after past this block's end, not the first's.
            Bucket count = bucket(bucket, Kind.COUNT, length.plus(settings.forgetAfter()));
            chain.reset(count, item.key() + BLOCKS);
            chain.consume(count, item.key() + BLOCKS, earlier + 1);
        }
        return blocked(bucket, length);
    }

    /**
     * Holds the key for its upstream (docs/guide.md#holds-from-the-upstream): its block, set for the upstream's
     * {@code Retry-After} rounded up to whole seconds, at most the bucket's {@code upstream-hold-max}, so every
     * replica refuses (or makes wait) the key's calls until then. A block or hold already in force that ends sooner
     * is replaced; one that ends later stays.
     *
     * @param bucket     the call's bucket
     * @param key        the call's hashed key
     * @param retryAfter the upstream's {@code Retry-After}, from now
     * @return whether the key is held: false for a bucket without upstream holds, or when the store could not be
     *         reached (the outage policy did not count it)
     */
    public boolean hold(Bucket bucket, String key, Duration retryAfter) {
        BlockSettings settings = blocks.get(bucket.name());
        if (settings == null || !settings.holdsForUpstream()) {
            return false;
        }
        long seconds = Math.max(1, retryAfter.getSeconds() + (retryAfter.getNano() > 0 ? 1 : 0));
        Duration length = Duration.ofSeconds(Math.min(seconds, settings.upstreamHoldMax().getSeconds()));
        Bucket longest = bucket(bucket, Kind.BLOCK, settings.longest());
        String blockKey = key + BLOCK;
        Verdict set = chain.consume(longest, blockKey, 1);
        if (set.outcome() == Verdict.Outcome.DENIED) {
            if (set.resetAfter().compareTo(length) >= 0) {
                return true; // held already, as long or longer
            }
            chain.reset(longest, blockKey);
            set = chain.consume(longest, blockKey, 1);
        }
        if (!counted(longest, set)) {
            return false;
        }
        if (length.compareTo(settings.longest()) < 0) {
            chain.consume(bucket(bucket, Kind.BLOCK, length), blockKey, 1); // brought to its length, as a block
        }
        return true;
    }

    /**
     * Whether the chain counted a call it answered {@code verdict}, rather than let it through uncounted by a fail-open
     * outage policy ({@link OutagePolicyLimiter#counted}): what a failures-only bucket may give back, and whether a
     * block was set. A chain without an outage policy counts every allowed call.
     *
     * @param bucket  the call's bucket, as it was decided
     * @param verdict the chain's answer for it
     * @return true for an {@code ALLOWED} verdict the chain counted
     */
    public boolean counted(Bucket bucket, Verdict verdict) {
        if (!(chain instanceof OutagePolicyLimiter policy)) {
            return verdict.isAllowed();
        }
        return policy.counted(bucket, verdict);
    }

    /** A refusal by the key's block: the bucket's limit, nothing left in any window until the block ends. */
    private Verdict blocked(Bucket bucket, Duration left) {
        marks.block(bucket);
        if (!bucket.hasSeveralWindows()) {
            return Verdict.denied(bucket.limit(), left);
        }
        List<Verdict.Window> windows = new ArrayList<>(bucket.limits().size());
        for (Limit limit : bucket.limits()) {
            windows.add(new Verdict.Window(limit, 0, left));
        }
        return new Verdict(Verdict.Outcome.DENIED, bucket.limit(), 0, left, windows);
    }

    /** Lifts the key's block and forgets its earlier blocks, with the bucket's own counts. */
    @Override
    public void reset(Bucket bucket, String key) {
        chain.reset(bucket, key);
        BlockSettings settings = blocks.get(bucket.name());
        if (settings != null) {
            chain.reset(bucket(bucket, Kind.BLOCK, settings.longest()), key + BLOCK);
            if (settings.escalates()) {
                chain.reset(bucket(bucket, Kind.COUNT, settings.max().plus(settings.forgetAfter())),
                        key + BLOCKS);
            }
        }
    }

    @Override
    public boolean refund(List<StoreRefund> refunds) {
        return chain.refund(refunds);
    }

    /** Permits pass through: a concurrency bucket has no block (its settings refuse one). */
    @Override
    public Limiter permitsTo() {
        return chain;
    }

    /**
     * The bucket a block's window, or its count's, is decided under: the bucket's name, plan and outage policy (its
     * fallback, its metrics), one fixed window of the given length; limit 1 for a block, the largest limit for a count.
     */
    private Bucket bucket(Bucket bucket, Kind kind, Duration window) {
        Derived id = new Derived(bucket.name(), bucket.plan(), bucket.onOutage(), kind, window);
        Bucket made = derived.get(id);
        if (made == null) {
            made = derived.computeIfAbsent(id, key -> new Bucket(bucket.name(),
                    List.of(new Limit(kind == Kind.BLOCK ? 1 : Bucket.MAX_LIMIT, window)), bucket.onOutage(),
                    Algorithm.FIXED_WINDOW, 0, bucket.plan()));
        }
        return made;
    }

    private enum Kind { BLOCK, COUNT }

    private record Derived(String name, String plan, OutagePolicy onOutage, Kind kind, Duration window) {
    }
}
