package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Bucket;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A bucket's bounded wait properties ({@code max-wait}, {@code max-waiting}; docs/guide.md#waiting-instead-of-refusing),
 * read for {@link BucketsReader}, and whether the bucket can wait. Each problem names the property to change.
 */
final class WaitReader {

    private final PropertyValues values;
    private final List<String> problems;
    private final Map<String, Integer> found = new TreeMap<>();

    WaitReader(PropertyValues values, List<String> problems) {
        this.values = values;
        this.problems = problems;
    }

    /**
     * Reads the bucket's wait: the bucket with its {@code max-wait}, its {@code max-waiting} kept in {@link #found()};
     * or the bucket as it was, with a problem when a value is out of range or the bucket cannot wait: a concurrency
     * bucket (a permit frees when a call ends, at no time a wait could aim at), a bucket of the global filter (it
     * decides before the resource method is chosen, and refuses at once) or one with quota leases (a replica
     * deciding from its lease has no store to reserve in).
     */
    Bucket read(String base, String name, Bucket bucket, boolean leased) {
        String maxWaitProperty = base + "max-wait";
        if (values.text(maxWaitProperty).isEmpty()) {
            if (values.text(base + "max-waiting").isPresent()) {
                problems.add(base + "max-waiting: set " + maxWaitProperty + " too, the longest a call waits, such "
                        + "as PT2S");
            }
            return bucket;
        }
        Duration maxWait = values.duration(maxWaitProperty, null, PropertyTable.BUCKET_MAX_WAIT.durations());
        long maxWaiting = values.wholeNumber(base + "max-waiting",
                Long.parseLong(PropertyTable.BUCKET_MAX_WAITING.defaultValue().orElseThrow()),
                PropertyTable.BUCKET_MAX_WAITING.wholeNumbers()); // out of range: a problem, and the default here
        if (maxWait == null) {
            return bucket;
        }
        if (maxWait.toNanos() % 1_000_000 != 0) { // verdicts tell time in milliseconds: a finer wait is never met
            problems.add(maxWaitProperty + ": '" + values.text(maxWaitProperty).orElseThrow()
                    + "' must be a whole number of milliseconds, such as PT2.5S");
            return bucket;
        }
        if (bucket.isConcurrency()) {
            problems.add(maxWaitProperty + ": bucket '" + name + "' is a concurrency bucket, whose permit frees when "
                    + "a call ends, at no time a wait could aim at; remove " + maxWaitProperty);
            return bucket;
        }
        if (name.equals(LimiterSettings.API_AUTHENTICATED) || name.equals(LimiterSettings.API_ANONYMOUS)) {
            problems.add(maxWaitProperty + ": bucket '" + name + "' is the global filter's, which refuses at once; "
                    + "remove " + maxWaitProperty + ", and set it on a bucket of a @RateLimited method");
            return bucket;
        }
        if (leased) {
            problems.add(maxWaitProperty + ": bucket '" + name + "' leases quota, and a replica deciding from its "
                    + "lease has no store to reserve a call's turn in; remove " + base + "quota-lease-percent or "
                    + maxWaitProperty);
            return bucket;
        }
        found.put(name, (int) maxWaiting);
        return bucket.withMaxWait(maxWait);
    }

    /** {@return each waiting bucket's {@code max-waiting} read so far, by name} */
    Map<String, Integer> found() {
        return Collections.unmodifiableMap(found);
    }
}
