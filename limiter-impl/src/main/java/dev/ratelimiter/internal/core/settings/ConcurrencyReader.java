package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Limit;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A concurrency bucket's properties ({@code concurrency}, {@code lease}; docs/guide.md#concurrency-limits), read for
 * {@link BucketsReader}: its one limit, and whether the bucket's other settings fit a limit of calls in flight. Each
 * problem names the property to change.
 */
final class ConcurrencyReader {

    private final PropertyValues values;
    private final List<String> problems;

    ConcurrencyReader(PropertyValues values, List<String> problems) {
        this.values = values;
        this.problems = problems;
    }

    /**
     * A concurrency bucket's one limit: its permits and its lease ({@code lease}, 30 s unset); null with the problem
     * when either is invalid, or when {@code algorithm} names another algorithm.
     */
    List<Limit> limits(String base, String name, String permitsText) {
        Long permits = values.parseWholeNumber(base + "concurrency", permitsText,
                PropertyTable.BUCKET_CONCURRENCY.wholeNumbers());
        Duration lease = values.duration(base + "lease",
                Duration.parse(PropertyTable.BUCKET_LEASE.defaultValue().orElseThrow()),
                PropertyTable.BUCKET_LEASE.durations());
        Optional<String> algorithm = values.text(base + "algorithm");
        if (algorithm.isPresent() && !algorithm.get().strip().equalsIgnoreCase(Algorithm.CONCURRENCY.configName())) {
            problems.add(base + "algorithm: bucket '" + name + "' limits concurrency (" + base + "concurrency), "
                    + "which counts no rate; remove " + base + "algorithm, and limit a rate with a second bucket on "
                    + "the same method");
            return null;
        }
        if (lease.getNano() != 0) {
            problems.add(base + "lease: '" + lease + "' must be a whole number of seconds, such as PT30S");
            return null;
        }
        if (permits == null) {
            return null;
        }
        return List.of(new Limit(permits, lease));
    }

    /**
     * Whether a concurrency bucket's other settings fit it: no block after a refusal (a refusal of a permit says
     * nothing of abuse) and every call counted (a permit is given back whatever the outcome); else a problem naming
     * the property to remove.
     */
    boolean fits(String base, String name, Optional<BlockSettings> block, FailureCounting counting) {
        if (block.isPresent() && block.get().blocksAfterRefusal()) {
            problems.add(base + "block: bucket '" + name + "' limits concurrency, and a refused call there only "
                    + "met busy permits; remove " + base + "block, or block on a rate bucket of the same method");
            return false;
        }
        if (block.isPresent()) {
            problems.add(base + "upstream-hold-max: bucket '" + name + "' limits concurrency, and holds a key by "
                    + "counting in its windows, which a concurrency bucket has none of; remove " + base
                    + "upstream-hold-max, or set it on a rate bucket of the same method");
            return false;
        }
        if (!counting.equals(FailureCounting.ALL)) {
            problems.add(base + "count: bucket '" + name + "' limits concurrency, and its permits are given back "
                    + "when every call ends, whatever the outcome; remove " + base + "count");
            return false;
        }
        return true;
    }
}
