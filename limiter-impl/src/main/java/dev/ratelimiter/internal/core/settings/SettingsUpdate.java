package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.key.KeyLists;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a reload applies (docs/live-limits.md): each bucket's settings read again, or, where they fail a check, the
 * ones it had, with the problems that kept them. Only the buckets' settings change while the application runs (their
 * limits, windows, algorithm, burst, outage policy, mode and plans); every other property is read at startup only.
 * Buckets are neither added nor removed: an annotation or an injected handle may name any bucket that existed at
 * startup, and a new one has no metrics registered; both are reported and left until a restart.
 *
 * @param settings the settings to apply
 * @param changed  the buckets whose settings changed, sorted
 * @param rejected the problems that kept old settings (each naming its property), in the order found; empty when
 *                 everything read applies
 */
public record SettingsUpdate(LimiterSettings settings, Set<String> changed, List<String> rejected) {

    public SettingsUpdate {
        changed = Set.copyOf(new TreeSet<>(changed));
        rejected = List.copyOf(rejected);
    }

    /**
     * The largest cost an application's code asks of a bucket at each call, from its annotations: a reload that
     * would refuse such a call every time is rejected, as the startup would be.
     *
     * @param cost  attempts, at least 1
     * @param where the method, for the message
     */
    public record StaticCost(long cost, String where) {
    }

    /**
     * Decides what a reload applies.
     *
     * @param current    the settings in use
     * @param read       the settings read again, and their problems
     * @param costs      each bucket's largest static cost, by name (absent: none)
     * @param algorithms the algorithms the store decides
     * @return the settings to apply, what changed, and what was kept out
     */
    public static SettingsUpdate of(LimiterSettings current, SettingsReader.Reading read,
                                    Map<String, StaticCost> costs, Set<Algorithm> algorithms) {
        LimiterSettings next = read.settings();
        List<String> rejected = new ArrayList<>();
        List<String> unplaced = new ArrayList<>(read.problems());
        Map<String, Bucket> buckets = new TreeMap<>();
        Map<String, BucketPlans> plans = new HashMap<>();
        Set<String> shadow = new TreeSet<>();
        Map<String, KeyLists> lists = new HashMap<>();
        Map<String, BlockSettings> blocks = new HashMap<>();
        Set<String> changed = new TreeSet<>();
        for (Map.Entry<String, Bucket> entry : current.buckets().entrySet()) {
            String name = entry.getKey();
            List<String> problems = new ArrayList<>();
            for (String problem : read.problems()) {
                if (concerns(problem, name)) {
                    problems.add(problem);
                    unplaced.remove(problem);
                }
            }
            Bucket candidate = next.buckets().get(name);
            if (candidate == null && problems.isEmpty()) {
                problems.add(PropertyTable.BUCKETS + name + ".*: bucket '" + name + "' is no longer configured; "
                        + "it keeps its settings until a restart (an annotation may name it)");
            }
            if (candidate != null && problems.isEmpty()
                    && candidate.isConcurrency() != entry.getValue().isConcurrency()) {
                // The methods' checks of a concurrency bucket (one permit a call, given back) run at startup only
                problems.add(PropertyTable.BUCKETS + name + ".concurrency: bucket '" + name + "' would turn "
                        + (candidate.isConcurrency() ? "into" : "from") + " a concurrency bucket; that applies after "
                        + "a restart");
            }
            if (candidate != null && problems.isEmpty()) {
                problems.addAll(checks(name, candidate, next.plans(name), costs.get(name), algorithms));
            }
            boolean keep = !problems.isEmpty();
            rejected.addAll(problems);
            LimiterSettings source = keep ? current : next;
            buckets.put(name, keep ? entry.getValue() : candidate);
            if (source.plans().containsKey(name)) {
                plans.put(name, source.plans().get(name));
            }
            if (source.shadowBuckets().contains(name)) {
                shadow.add(name);
            }
            if (source.lists().containsKey(name)) {
                lists.put(name, source.lists().get(name));
            }
            source.block(name).ifPresent(block -> blocks.put(name, block));
            if (!keep && (!candidate.equals(entry.getValue())
                    || !Objects.equals(current.plans().get(name), next.plans().get(name))
                    || current.shadowBuckets().contains(name) != next.shadowBuckets().contains(name)
                    || !current.lists(name).equals(next.lists(name))
                    || !current.block(name).equals(next.block(name)))) {
                changed.add(name);
            }
        }
        for (String name : next.buckets().keySet()) {
            if (!current.buckets().containsKey(name)) {
                rejected.add(PropertyTable.BUCKETS + name + ".*: bucket '" + name + "' is new; buckets are added at "
                        + "startup only, so it applies after a restart");
            }
        }
        rejected.addAll(unplaced); // another property's problem: it applies at startup only, but is wrong now
        return new SettingsUpdate(current.withBuckets(buckets, shadow, lists, blocks, plans), changed, rejected);
    }

    /** The startup's checks that need more than the bucket's own properties: its store, and its static costs. */
    private static List<String> checks(String name, Bucket bucket, BucketPlans plans, StaticCost cost,
                                       Set<Algorithm> algorithms) {
        List<String> problems = new ArrayList<>();
        String base = PropertyTable.BUCKETS + name + ".";
        if (bucket.isConcurrency() && !algorithms.contains(Algorithm.CONCURRENCY)) {
            problems.add(base + "concurrency: this store (ratelimiter.backend) keeps no permits; remove it");
        } else if (!algorithms.contains(bucket.algorithm())) {
            problems.add(base + "algorithm: '" + bucket.algorithm().configName() + "' is not decided by this store "
                    + "(ratelimiter.backend); keep " + algorithms.stream().map(Algorithm::configName).sorted()
                    .toList());
        }
        if (cost != null) {
            if (cost.cost() > bucket.largestCost()) {
                problems.add(base + (bucket.hasSeveralWindows() ? "limits" : "limit") + ": " + cost.where()
                        + " counts " + cost.cost() + " per call, above what the bucket would allow, "
                        + bucket.largestCost());
            }
            for (Map.Entry<String, Bucket> plan : new TreeMap<>(plans.plans()).entrySet()) {
                if (cost.cost() > plan.getValue().largestCost()) {
                    problems.add(base + "plans." + plan.getKey() + "." + (bucket.hasSeveralWindows() ? "limits"
                            : "limit") + ": " + cost.where() + " counts " + cost.cost() + " per call, above what "
                            + "plan '" + plan.getKey() + "' would allow, " + plan.getValue().largestCost());
                }
            }
        }
        return problems;
    }

    /** Whether a problem names one of the bucket's properties, in properties or environment form. */
    private static boolean concerns(String problem, String bucket) {
        String env = "RATELIMITER_BUCKETS_" + bucket.toUpperCase(Locale.ROOT).replace('-', '_') + "_";
        return problem.startsWith(PropertyTable.BUCKETS + bucket + ".") || problem.startsWith(env)
                || problem.contains("bucket '" + bucket + "'");
    }
}
