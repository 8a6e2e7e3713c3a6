package dev.ratelimiter.bench;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.internal.core.monitor.BackendState;
import dev.ratelimiter.internal.core.settings.BreakerSettings;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;

/**
 * Section 3: the decision's latency while the store is paused (SIGSTOP: sockets stay open, nothing answers),
 * phase by phase: healthy, stopped before the breaker opens (each call waits for its deadline), stopped with the
 * breaker open (the fallback answers at once), and after SIGCONT. With the library's default deadline (100 ms)
 * and a {@code FALLBACK} bucket, 8 client threads, 1 000 keys.
 */
final class OutageSection {

    private static final Duration DEADLINE = Duration.ofMillis(100);
    private static final String[] PHASES = {"healthy", "stopped, before the breaker opens",
        "stopped, breaker open", "after SIGCONT, breaker closed again"};

    private OutageSection() {
    }

    /**
     * @param cluster the PostgreSQL cluster to stop, in a database of the section's own (the smoke run's one
     *                cluster); empty: a fresh cluster of the section's own (the full run, so the store section's
     *                rows do not weigh on these figures)
     */
    static Section run(Mode mode, Optional<PostgresCluster> cluster) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (StoppableStore valkey = StoppableStore.valkey()) {
            rows.addAll(run(mode, valkey));
        }
        try (StoppableStore postgres = cluster.isPresent() ? StoppableStore.postgres(cluster.get())
                : StoppableStore.postgres()) {
            rows.addAll(run(mode, postgres));
        }
        return new Section("Outage: decision latency while the store is stopped", "A `FALLBACK` bucket with the "
                + "library's default deadline (" + DEADLINE.toMillis() + " ms), 8 closed-loop client threads over "
                + "1 000 keys, the whole decision path; the store's processes paused with SIGSTOP, continued "
                + "with SIGCONT; each call counts in the phase it started in. Figures: p99 in µs (p50, max and the "
                + "number of decisions in brackets). Before the breaker opens each call waits for the deadline; "
                + "once open, the in-memory fallback answers. Healthy phase after a warm-up of at least 1 000 "
                + "decisions." + breaker(mode.outageBreaker()), rows);
    }

    /** The breaker's settings where they are not the library's defaults (the smoke run), else nothing. */
    private static String breaker(BreakerSettings settings) {
        return settings.equals(BreakerSettings.DEFAULTS) ? "" : " The breaker: " + settings.failureThreshold()
                + " failures open it, probes back off from " + settings.initialBackoff().toMillis() + " to "
                + settings.maxBackoff().toMillis() + " ms, " + settings.successThreshold() + " successes close it "
                + "(the library's defaults: from " + BreakerSettings.DEFAULTS.initialBackoff().toSeconds() + " s to "
                + BreakerSettings.DEFAULTS.maxBackoff().toSeconds() + " s).";
    }

    private static List<Row> run(Mode mode, StoppableStore server) throws Exception {
        Bucket bucket = Bucket.of("bench-outage", 1_000_000_000L, Duration.ofMinutes(1), OutagePolicy.FALLBACK);
        List<Histogram> phases = new ArrayList<>();
        for (int i = 0; i < PHASES.length; i++) {
            phases.add(new ConcurrentHistogram(3));
        }
        AtomicInteger phase = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        String[] keys = Keys.raw(1_000);
        var metrics = LibraryPaths.metrics();
        LibraryPaths.Store store = server.store(DEADLINE, metrics);
        try (LibraryPaths.Decision decision = LibraryPaths.Decision.shared(List.of(bucket), store, metrics,
                mode.outageBreaker())) {
            List<Thread> clients = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int seed = t;
                Thread client = new Thread(() -> {
                    int i = seed;
                    while (!stop.get()) {
                        // A call counts in the phase it started in: one that began before the breaker
                        // opened waits for its deadline, whenever it ends.
                        int now = phase.get();
                        if (now == 1 && store.monitor().status().state() == BackendState.DEGRADED) {
                            now = 2; // the breaker has opened; the main thread is about to say so
                        }
                        Histogram current = phases.get(now);
                        long began = System.nanoTime();
                        decision.decide(bucket, keys[i++ % keys.length], KeyNormalization.LOGIN);
                        current.recordValue(System.nanoTime() - began);
                    }
                }, "bench-outage-" + t);
                client.setDaemon(true);
                clients.add(client);
                client.start();
            }
            // Warm until the pool is connected and the path compiled, then measure the healthy phase afresh.
            Thread.sleep(mode.loadWarmup().toMillis());
            await().atMost(Duration.ofSeconds(60)).until(() -> phases.get(0).getTotalCount() >= 1_000);
            phases.get(0).reset();
            Thread.sleep(mode.outagePhase().toMillis());
            phase.set(1);
            server.stop();
            long paused = System.nanoTime();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5))
                    .until(() -> store.monitor().status().state() == BackendState.DEGRADED);
            long opened = System.nanoTime() - paused;
            phase.set(2);
            Thread.sleep(mode.outagePhase().toMillis());
            server.resume();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5))
                    .until(() -> store.monitor().status().state() == BackendState.OK);
            phase.set(3);
            Thread.sleep(mode.outagePhase().toMillis());
            stop.set(true);
            for (Thread client : clients) {
                client.join();
            }
            return rows(server.name(), phases, opened);
        }
    }

    private static List<Row> rows(String store, List<Histogram> phases, long openedAfterNanos) {
        Figure healthy = figure(PHASES[0], phases.get(0));
        List<Row> rows = new ArrayList<>();
        rows.add(Row.alone(store + ": p99 while healthy", healthy));
        for (int i = 1; i < PHASES.length; i++) {
            rows.add(Row.of(store + ": p99 " + PHASES[i] + " / p99 healthy", figure(PHASES[i], phases.get(i)),
                    healthy, Goal.none()));
        }
        rows.add(Row.alone(store + ": time from SIGSTOP to the breaker open",
                new Figure("breaker", openedAfterNanos / 1e6, "ms")));
        return rows;
    }

    private static Figure figure(String phase, Histogram histogram) {
        return new Figure(phase, histogram.getValueAtPercentile(99) / 1e3, "µs p99", Map.of(
                "p50_us", histogram.getValueAtPercentile(50) / 1e3,
                "max_us", histogram.getMaxValue() / 1e3,
                "decisions", (double) histogram.getTotalCount()));
    }
}
