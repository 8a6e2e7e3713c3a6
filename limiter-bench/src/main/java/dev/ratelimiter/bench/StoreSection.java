package dev.ratelimiter.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Section 2: each shared store's contenders under closed-loop loads (every thread count of the mode, one hot
 * refused key and a spread of keys), one row per comparison and load.
 */
final class StoreSection {

    private StoreSection() {
    }

    static Section run(Mode mode, StoreRig rig) throws Exception {
        List<Contender> contenders = rig.contenders();
        // One unrecorded pass of each contender first, so the first load measured is not the JIT's and the
        // pools' warm-up.
        for (Contender contender : contenders) {
            contender.measure(new Load(4, mode.keys(), Duration.ZERO, mode.loadWarmup().multipliedBy(2)));
        }
        List<Row> rows = new ArrayList<>();
        for (int threads : mode.threads()) {
            for (int keys : new int[] {1, mode.keys()}) {
                Load load = new Load(threads, keys, mode.loadWarmup(), mode.loadDuration());
                Map<String, Figure> figures = new HashMap<>();
                for (Contender contender : contenders) {
                    figures.put(contender.name(), contender.measure(load));
                    System.out.printf("bench: %s, %s: %s %.0f/s%n", rig.name(), load.describe(), contender.name(),
                            figures.get(contender.name()).value());
                }
                for (Comparison comparison : rig.comparisons()) {
                    rows.add(Row.of(load.describe() + ": " + comparison.figure() + " / " + comparison.anchor(),
                            figure(figures, comparison.figure()), figure(figures, comparison.anchor()),
                            comparison.goal().apply(load)));
                }
            }
        }
        return new Section(rig.name() + ": decisions per second", rig.name() + " server: " + rig.server()
                + ". Closed loop (each client thread calls again as soon as it has its answer), "
                + mode.loadWarmup().toMillis() + " ms warm-up then " + mode.loadDuration().toMillis()
                + " ms measured per load and contender, after one unrecorded pass of each "
                + "contender. Hot key: one key in a bucket of 10 per minute, so nearly every decision is a "
                + "refusal; spread: keys drawn at random. Figures in decisions/s; p50/p99 in µs of the calling "
                + "thread; bytes_per_call = what the calling threads allocated per call. In-JVM contenders "
                + "share the deadline " + LibraryPaths.TIMEOUT.toMillis() + " ms and the library's default pool "
                + "sizes (Valkey 32, PostgreSQL 16).", rows);
    }

    private static Figure figure(Map<String, Figure> figures, String name) {
        Figure figure = figures.get(name);
        if (figure == null) {
            throw new IllegalStateException("a comparison names '" + name + "', which is no contender");
        }
        return figure;
    }
}
