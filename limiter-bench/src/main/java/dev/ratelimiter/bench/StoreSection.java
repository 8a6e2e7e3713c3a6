package dev.ratelimiter.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Section 2: each shared store's contenders under closed-loop loads (every thread count of the mode, one hot
 * refused key and a spread of keys), one row per comparison and load: the load's round of median ratio
 * ({@link Mode#loadRounds()}).
 */
final class StoreSection {

    private StoreSection() {
    }

    static Section run(Mode mode, StoreRig rig) throws Exception {
        return run(mode, rig, "");
    }

    /**
     * @param only a text the rows kept name ({@code -Dbench.rows}): only they are measured, with the contenders
     *             they compare; empty for every row
     */
    static Section run(Mode mode, StoreRig rig, String only) throws Exception {
        List<Comparison> comparisons = rig.comparisons().stream().filter(c -> c.what().contains(only)).toList();
        if (comparisons.isEmpty()) {
            throw new IllegalArgumentException("no row of " + rig.name() + " names '" + only + "'");
        }
        Set<String> compared = new HashSet<>();
        comparisons.forEach(c -> compared.addAll(List.of(c.figure(), c.anchor())));
        List<Contender> contenders = rig.contenders().stream()
                .filter(c -> only.isEmpty() || compared.contains(c.name())).toList();
        // One unrecorded pass of each contender first, so the first load measured is not the JIT's and the
        // pools' warm-up.
        for (Contender contender : contenders) {
            contender.measure(new Load(4, mode.keys(), Duration.ZERO, mode.loadWarmup().multipliedBy(2)));
        }
        List<Row> rows = new ArrayList<>();
        for (int threads : mode.threads()) {
            for (int keys : new int[] {1, mode.keys()}) {
                List<Map<String, Figure>> rounds = new ArrayList<>();
                String describe = "";
                for (int round = 0; round < mode.loadRounds(); round++) {
                    Load load = new Load(threads, keys, round == 0 ? mode.loadWarmup() : mode.loadRewarmup(),
                            mode.loadDuration());
                    describe = load.describe();
                    List<Contender> order = new ArrayList<>(contenders);
                    if (round % 2 == 1) {
                        Collections.reverse(order); // each pair of a comparison measured first in turn
                    }
                    Map<String, Figure> figures = new HashMap<>();
                    for (Contender contender : order) {
                        figures.put(contender.name(), contender.measure(load));
                        System.out.printf("bench: %s, %s, round %d: %s %.0f/s%n", rig.name(), describe, round + 1,
                                contender.name(), figures.get(contender.name()).value());
                    }
                    rounds.add(figures);
                }
                Load load = new Load(threads, keys, mode.loadWarmup(), mode.loadDuration());
                for (Comparison comparison : comparisons) {
                    rows.add(median(describe + ": " + comparison.what(), rounds, comparison,
                            comparison.goal().apply(load)));
                }
            }
        }
        return new Section(rig.name() + ": decisions per second", rig.name() + " server: " + rig.server()
                + ". Closed loop (each client thread calls again as soon as it has its answer). Each load is "
                + mode.loadRounds() + " rounds of every contender in turn, in reverse order every other round: "
                + mode.loadWarmup().toMillis() + " ms warm-up before the first round and "
                + mode.loadRewarmup().toMillis() + " ms before the others, then " + mode.loadDuration().toMillis()
                + " ms measured; after one unrecorded pass of each contender. A row is the round whose ratio is the "
                + "median (ratio_min and ratio_max: the other rounds'), so one slow minute of this shared machine "
                + "does not make a ratio. Hot key: one key in a bucket of 10 per minute, so nearly every decision "
                + "is a refusal; spread: keys drawn at random. Figures in decisions/s, but the permit rows' in pairs/s "
                + "(a permit of a concurrency bucket of 10 000 per key, 30 s leases, taken and given back: two "
                + "round trips, never refused); p50/p99 in µs of the calling thread, per call or pair; "
                + "bytes_per_call = what the calling threads allocated per call or pair. In-JVM contenders "
                + "share the deadline " + LibraryPaths.TIMEOUT.toMillis() + " ms and the library's default pool "
                + "sizes (Valkey 32, PostgreSQL 16).", rows);
    }

    /** The row of {@code comparison}: its round of median ratio ({@link Row#medianByRatio}). */
    static Row median(String what, List<Map<String, Figure>> rounds, Comparison comparison, Optional<Goal> goal) {
        List<Figure[]> pairs = new ArrayList<>();
        for (Map<String, Figure> figures : rounds) {
            pairs.add(new Figure[] {figure(figures, comparison.figure()), figure(figures, comparison.anchor())});
        }
        return Row.medianByRatio(what, pairs, "rounds", goal);
    }

    private static Figure figure(Map<String, Figure> figures, String name) {
        Figure figure = figures.get(name);
        if (figure == null) {
            throw new IllegalStateException("a comparison names '" + name + "', which is no contender");
        }
        return figure;
    }
}
