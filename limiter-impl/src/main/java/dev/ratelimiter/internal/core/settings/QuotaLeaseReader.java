package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A bucket's quota lease properties ({@code quota-lease-percent}, {@code quota-lease-idle};
 * docs/guide.md#quota-leases-for-hot-keys), read for {@link BucketsReader}, and whether the bucket's other settings
 * let a replica decide from a lease. Each problem names the property to change.
 */
final class QuotaLeaseReader {

    private final PropertyValues values;
    private final List<String> problems;
    private final Map<String, QuotaLeaseSettings> found = new TreeMap<>();

    QuotaLeaseReader(PropertyValues values, List<String> problems) {
        this.values = values;
        this.problems = problems;
    }

    /**
     * Reads the bucket's quota leases, kept in {@link #found()}: none when {@code quota-lease-percent} is unset, or
     * a problem when a value is out of range or the bucket cannot lease: a sliding window (its quota moves with time, so a share taken now
     * would weigh on the next window whether used or not), a concurrency bucket (a permit is not a share of a
     * quota) or a block after a refusal (its check asks the store at every call, which a lease exists to spare).
     */
    void read(String base, String name, Bucket bucket, Optional<BlockSettings> block) {
        lease(base, name, bucket, block).ifPresent(lease -> found.put(name, lease));
    }

    /** {@return each bucket's quota leases read so far, by name} */
    Map<String, QuotaLeaseSettings> found() {
        return Collections.unmodifiableMap(found);
    }

    private Optional<QuotaLeaseSettings> lease(String base, String name, Bucket bucket, Optional<BlockSettings> block) {
        String percentProperty = base + "quota-lease-percent";
        Optional<String> percentText = values.text(percentProperty);
        if (percentText.isEmpty()) {
            if (values.text(base + "quota-lease-idle").isPresent()) {
                problems.add(base + "quota-lease-idle: set " + percentProperty + " too, the largest share of a "
                        + "key's quota one replica leases, such as 5");
            }
            return Optional.empty();
        }
        Long percent = values.parseWholeNumber(percentProperty, percentText.get(),
                PropertyTable.BUCKET_QUOTA_LEASE_PERCENT.wholeNumbers());
        Duration idle = values.duration(base + "quota-lease-idle",
                Duration.parse(PropertyTable.BUCKET_QUOTA_LEASE_IDLE.defaultValue().orElseThrow()),
                PropertyTable.BUCKET_QUOTA_LEASE_IDLE.durations());
        if (percent == null) {
            return Optional.empty();
        }
        if (bucket.algorithm() == Algorithm.SLIDING_WINDOW || bucket.isConcurrency()) {
            problems.add(percentProperty + ": bucket '" + name + "' is a " + bucket.algorithm().configName()
                    + (bucket.isConcurrency()
                    ? ", whose permits are no share of a quota; remove " + percentProperty
                    : ", whose quota moves with time, so a share taken now would weigh on the next window whether "
                    + "used or not; remove " + percentProperty + ", or set " + base + "algorithm to fixed-window or "
                    + "token-bucket"));
            return Optional.empty();
        }
        if (block.isPresent()) {
            boolean blocks = block.get().blocksAfterRefusal();
            problems.add(percentProperty + ": bucket '" + name + "' " + (blocks ? "blocks after a refusal"
                    : "holds for its upstream") + ", and a block is checked in the store at every call, which a quota "
                    + "lease exists to spare; remove " + base + (blocks ? "block" : "upstream-hold-max") + " or "
                    + percentProperty);
            return Optional.empty();
        }
        return Optional.of(new QuotaLeaseSettings(percent.intValue(), idle));
    }
}
