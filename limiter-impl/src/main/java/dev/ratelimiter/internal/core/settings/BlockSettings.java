package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Bucket;

import java.time.Duration;
import java.util.Objects;

/**
 * A bucket's blocks: its block after a refusal (docs/guide.md#blocks-after-a-refusal): once the bucket's limits refuse
 * a key, the key stays refused for {@code first}; each further block while the key's earlier blocks are remembered
 * lasts twice the one before, at most {@code max}; the count of blocks is forgotten {@code forgetAfter} after the last
 * block ends. And its upstream's holds (docs/guide.md#holds-from-the-upstream): an upstream's 429 or 503 with
 * {@code Retry-After} blocks the key until then, at most {@code upstreamHoldMax}. Both share the key's one block.
 *
 * <p>Every duration is whole seconds, as a window's. A bucket with holds only has {@code first}, {@code max} and
 * {@code forgetAfter} 0 ({@link #upstreamHoldsOnly}).
 *
 * @param first       {@link PropertyTable#BUCKET_BLOCK}: the first block's length, 1 second to {@link Bucket#MAX_WINDOW}
 * @param max         {@link PropertyTable#BUCKET_BLOCK_MAX}: the longest block, from {@code first} (no doubling) to
 *                    {@link Bucket#MAX_WINDOW}
 * @param forgetAfter {@link PropertyTable#BUCKET_BLOCK_FORGET_AFTER}: how long a key must stay unblocked for its
 *                    blocks to be forgotten, so that its next block is {@code first} again; where blocks grow,
 *                    {@code max} plus it stays within {@link Bucket#MAX_WINDOW} (the count's window)
 * @param upstreamHoldMax {@link PropertyTable#BUCKET_UPSTREAM_HOLD_MAX}: the longest hold an upstream's
 *                    {@code Retry-After} sets, 1 second to a day; 0: the upstream's answers hold nothing
 */
public record BlockSettings(Duration first, Duration max, Duration forgetAfter, Duration upstreamHoldMax) {

    /** @throws IllegalArgumentException if a duration is outside the ranges above */
    public BlockSettings {
        Objects.requireNonNull(first, "first");
        Objects.requireNonNull(max, "max");
        Objects.requireNonNull(forgetAfter, "forgetAfter");
        Objects.requireNonNull(upstreamHoldMax, "upstreamHoldMax");
        if (upstreamHoldMax.isNegative() || upstreamHoldMax.getNano() != 0
                || upstreamHoldMax.compareTo(Duration.ofDays(1)) > 0
                || first.isZero() && (upstreamHoldMax.isZero() || !max.isZero() || !forgetAfter.isZero())) {
            throw new IllegalArgumentException("upstream holds of up to " + upstreamHoldMax + " beside a block of "
                    + first + ": holds last whole seconds up to a day, and a bucket without a block holds");
        }
        if (!first.isZero() && first.compareTo(Duration.ofSeconds(1)) < 0 || max.compareTo(first) < 0
                || max.compareTo(first) > 0 && max.plus(forgetAfter).compareTo(Bucket.MAX_WINDOW) > 0
                || forgetAfter.isNegative()
                || first.getNano() != 0 || max.getNano() != 0 || forgetAfter.getNano() != 0) {
            throw new IllegalArgumentException("a block of " + first + " up to " + max + ", forgotten after "
                    + forgetAfter + ": the first block must be at least PT1S, the longest at least the first, and "
                    + "blocks that grow at most " + Bucket.MAX_WINDOW + ", all whole seconds");
        }
    }

    /**
     * A block after a refusal, without upstream holds.
     *
     * @param first       the first block, at least a second
     * @param max         the longest block, at least {@code first}
     * @param forgetAfter how long a key stays unblocked for its blocks to be forgotten
     * @throws IllegalArgumentException if a duration is outside the ranges of the record's components
     */
    public BlockSettings(Duration first, Duration max, Duration forgetAfter) {
        this(first, max, forgetAfter, Duration.ZERO);
    }

    /**
     * Upstream holds of at most {@code max}, without a block after a refusal.
     *
     * @param max the longest hold, whole seconds from a second to a day
     * @return the settings
     * @throws IllegalArgumentException if {@code max} is outside that range
     */
    public static BlockSettings upstreamHoldsOnly(Duration max) {
        return new BlockSettings(Duration.ZERO, Duration.ZERO, Duration.ZERO, max);
    }

    /**
     * {@return what the settings do, for the startup log: {@code block PT1H up to PT4H}, {@code upstream holds up to
     * PT1M}, or both joined by a comma}
     */
    public String describe() {
        String block = first + (escalates() ? " up to " + max : "");
        String holds = "upstream holds up to " + upstreamHoldMax;
        return !holdsForUpstream() ? "block " + block
                : blocksAfterRefusal() ? "block " + block + ", " + holds : holds;
    }

    /** {@return whether the bucket's limits block a key they refuse} */
    public boolean blocksAfterRefusal() {
        return !first.isZero();
    }

    /** {@return whether an upstream's Retry-After holds the key} */
    public boolean holdsForUpstream() {
        return !upstreamHoldMax.isZero();
    }

    /**
     * The length of the key's block window: the longest block or hold. Every check and every block opens it at this
     * length, then brings it to its own, so none ever shortens another's.
     */
    public Duration longest() {
        return max.compareTo(upstreamHoldMax) >= 0 ? max : upstreamHoldMax;
    }

    /** {@return whether blocks grow: the longest block is longer than the first} */
    public boolean escalates() {
        return max.compareTo(first) > 0;
    }

    /**
     * The length of a block that follows {@code earlier} remembered blocks: the first block doubled that many
     * times, at most {@link #max()}.
     *
     * @param earlier the key's blocks still remembered, 0 or more
     * @return the block's length
     */
    public Duration length(long earlier) {
        Duration length = first;
        for (long i = 0; i < earlier && length.compareTo(max) < 0; i++) {
            length = length.multipliedBy(2);
        }
        return length.compareTo(max) > 0 ? max : length;
    }

    /** {@return how many doublings reach {@link #max()}: blocks beyond that many earlier ones all last max} */
    public int doublings() {
        int count = 0;
        for (Duration length = first; length.compareTo(max) < 0; length = length.multipliedBy(2)) {
            count++;
        }
        return count;
    }
}
