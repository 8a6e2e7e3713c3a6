package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Bucket;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A bucket's blocks, read for {@link BucketsReader}: its block after a refusal ({@code block}, {@code block-max},
 * {@code block-forget-after}; docs/guide.md#blocks-after-a-refusal) and its upstream's holds
 * ({@code upstream-hold-max}; docs/guide.md#holds-from-the-upstream), which share one window per key. Each problem
 * names the property to change.
 */
final class BlockReader {

    private final PropertyValues values;
    private final List<String> problems;

    BlockReader(PropertyValues values, List<String> problems) {
        this.values = values;
        this.problems = problems;
    }

    /**
     * The bucket's blocks; none, with a problem naming the property, when a value is out of range or not whole
     * seconds, or a longer block is set without a first one.
     */
    Optional<BlockSettings> read(String base) {
        Duration hold = values.duration(base + "upstream-hold-max", null,
                PropertyTable.BUCKET_UPSTREAM_HOLD_MAX.durations());
        if (hold != null && !wholeSeconds(base + "upstream-hold-max", hold)) {
            return Optional.empty();
        }
        Duration first = values.duration(base + "block", null, PropertyTable.BUCKET_BLOCK.durations());
        Optional<String> maxText = values.text(base + "block-max");
        Optional<String> forgetText = values.text(base + "block-forget-after");
        if (first == null) {
            if (values.text(base + "block").isEmpty() && (maxText.isPresent() || forgetText.isPresent())) {
                problems.add(base + (maxText.isPresent() ? "block-max" : "block-forget-after") + ": set "
                        + base + "block too, the first block's length, such as PT1H");
                return Optional.empty();
            }
            return Optional.ofNullable(hold).map(BlockSettings::upstreamHoldsOnly);
        }
        Duration max = values.duration(base + "block-max", first, PropertyTable.BUCKET_BLOCK_MAX.durations());
        Duration forgetAfter = values.duration(base + "block-forget-after", Duration.ofDays(1),
                PropertyTable.BUCKET_BLOCK_FORGET_AFTER.durations());
        if (!wholeSeconds(base + "block", first) | !wholeSeconds(base + "block-max", max)
                | !wholeSeconds(base + "block-forget-after", forgetAfter)) {
            return Optional.empty();
        }
        if (max.compareTo(first) < 0) {
            problems.add(base + "block-max: " + max + " is shorter than " + base + "block (" + first
                    + "); the longest block is at least the first");
            return Optional.empty();
        }
        if (max.compareTo(first) > 0 && max.plus(forgetAfter).compareTo(Bucket.MAX_WINDOW) > 0) {
            problems.add(base + "block-forget-after: " + forgetAfter + " after a block of up to " + max
                    + " is beyond " + Bucket.MAX_WINDOW + "; shorten " + base + "block-forget-after or " + base
                    + "block-max");
            return Optional.empty();
        }
        return Optional.of(new BlockSettings(first, max, forgetAfter, hold == null ? Duration.ZERO : hold));
    }

    /** Whether a block's duration is whole seconds, as a window's; else a problem naming the property. */
    private boolean wholeSeconds(String property, Duration duration) {
        if (duration.getNano() == 0) {
            return true;
        }
        problems.add(property + ": '" + duration + "' must be a whole number of seconds, such as PT1H");
        return false;
    }
}
