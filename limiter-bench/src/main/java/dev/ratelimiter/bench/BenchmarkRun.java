package dev.ratelimiter.bench;

import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.internal.core.memory.MemoryRateLimiter;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.valkey.RedisServer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Runs every section and writes {@code BENCHMARKS.md} and {@code benchmarks.json}.
 *
 * <p>Arguments: {@code full|smoke}, the output directory, the repository root (for the command shown). System
 * property {@code bench.http}: the directory holding {@code payara-micro.jar} and {@code limiter-example.war};
 * {@code bench.only}: the sections run ({@link #SECTIONS}); {@code bench.rows}: a text that the rows kept of the
 * {@code jmh}, {@code valkey} and {@code postgres} sections name, only they measured (empty: every row), such as
 * {@code take and give back} for the permits' rows.
 * Started by Maven ({@code ./mvnw -Pbench -pl limiter-bench -am verify} for the full run; the smoke run is part
 * of {@code ./mvnw verify}); it starts its own {@code redis-server}s and PostgreSQL cluster on free ports.
 */
public final class BenchmarkRun {

    static final String COMMAND = "./mvnw -Pbench -pl limiter-bench -am verify";
    /** The sections, by the names {@code -Dbench.only=a,b} (a subset, while developing) takes. */
    static final List<String> SECTIONS = List.of("memory", "jmh", "valkey", "postgres", "boundary", "burst",
            "hotkey", "waits", "outage", "http");

    private BenchmarkRun() {
    }

    public static void main(String[] args) throws Exception {
        Mode mode = Mode.named(args[0]);
        Path output = Path.of(args[1]);
        Path http = Path.of(System.getProperty("bench.http", "limiter-bench/target/http"));
        Instant began = Instant.now();
        List<Section> sections = new ArrayList<>();
        Set<String> only = Set.of(System.getProperty("bench.only", String.join(",", SECTIONS)).split(","));
        String rows = System.getProperty("bench.rows", "");
        Map<String, String> servers = new LinkedHashMap<>();
        // The smoke run starts one PostgreSQL cluster for the store, boundary and outage sections, in the background
        // from the start (StartingCluster); the full run gives the outage a fresh cluster, its figures apart from the
        // loads'.
        boolean boundaries = only.contains("boundary");
        try (StartingCluster smokeCluster = new StartingCluster(mode.smoke() && (only.contains("postgres")
                || boundaries || only.contains("burst") || only.contains("hotkey") || only.contains("waits")
                || only.contains("outage")))) {
            BoundarySection boundary = new BoundarySection(mode);
            ExactnessSection burst = new ExactnessSection(mode);
            HotKeySection hotKey = new HotKeySection(mode);
            WaitsSection waits = new WaitsSection(mode);
            runFirst(mode, only, rows, sections, servers, boundary, burst, hotKey, waits);
            run(mode, only, rows, sections, servers, boundary, burst, hotKey, waits, smokeCluster.get(), http);
        }
        Duration took = Duration.between(began, Instant.now()).truncatedTo(ChronoUnit.SECONDS);
        Map<String, String> environment = Environment.describe(mode, took, servers);
        Report.write(output, Environment.header(environment), sections, environment);
        System.out.println("bench: " + mode.name() + " run took " + took + "; wrote "
                + output.resolve("BENCHMARKS.md") + " and " + output.resolve("benchmarks.json"));
        if (!Files.exists(output.resolve("BENCHMARKS.md"))) {
            throw new IllegalStateException("BENCHMARKS.md was not written");
        }
    }

    /**
     * The sections before PostgreSQL's (memory, JMH, Valkey) and the memory and Valkey rows of the boundary, burst,
     * hot-key and waits sections.
     */
    private static void runFirst(Mode mode, Set<String> only, String rows, List<Section> sections,
                                 Map<String, String> servers, BoundarySection boundary, ExactnessSection burst,
                                 HotKeySection hotKey, WaitsSection waits) throws Exception {
        boolean boundaries = only.contains("boundary");
        boolean bursts = only.contains("burst");
        boolean hotKeys = only.contains("hotkey");
        boolean waiting = only.contains("waits");
        if (bursts) {
            burst.measure("Memory", 1, () -> LibraryPaths.Decision.memory(ExactnessSection.buckets(), 1_000));
        }
        if (waiting) {
            waits.measure("Memory", LibraryPaths.Decision.memory(waits.buckets(), 1_000));
        }
        if (only.contains("memory")) {
            sections.add(step("memory", () -> MemorySection.run(mode)));
        }
        if (only.contains("jmh")) {
            sections.add(step("jmh", () -> InMemorySection.run(mode, rows)));
        }
        Limiter memory = new MemoryRateLimiter(InstantSource.system(), 1_000);
        if (boundaries && !mode.smoke()) {
            boundary.measure("Memory", memory);
        }
        if (only.contains("valkey") || boundaries || bursts || hotKeys || waiting) {
            try (RedisServer redis = RedisServer.start(); ValkeyRig valkey = new ValkeyRig(redis)) {
                servers.put("Valkey", valkey.server());
                if (only.contains("valkey")) {
                    sections.add(step("valkey", () -> StoreSection.run(mode, valkey, rows)));
                }
                if (boundaries) {
                    try (LibraryPaths.Store store = LibraryPaths.valkey(redis.url(), LibraryPaths.TIMEOUT,
                            RateLimiterMetrics.NONE)) {
                        // The smoke run waits out one window's end for memory and Valkey; the full run, one each.
                        Map<String, Limiter> stores = new LinkedHashMap<>();
                        if (mode.smoke()) {
                            stores.put("Memory", memory);
                        }
                        stores.put("Valkey", store.limiter());
                        boundary.measure(stores);
                    }
                }
                if (bursts) {
                    burst.measure("Valkey", 2, () -> {
                        RateLimiterMetrics metrics = LibraryPaths.metrics();
                        return LibraryPaths.Decision.shared(ExactnessSection.buckets(), LibraryPaths.valkey(
                                redis.url(), ExactnessSection.DEADLINE, metrics), metrics);
                    });
                }
                if (hotKeys) {
                    hotKey.measure("Valkey", leases -> {
                        RateLimiterMetrics metrics = LibraryPaths.metrics();
                        return LibraryPaths.Decision.shared(hotKey.buckets(), LibraryPaths.valkey(redis.url(),
                                LibraryPaths.TIMEOUT, metrics), metrics, leases);
                    });
                }
                if (waiting) {
                    RateLimiterMetrics metrics = LibraryPaths.metrics();
                    waits.measure("Valkey", LibraryPaths.Decision.shared(waits.buckets(), LibraryPaths.valkey(
                            redis.url(), LibraryPaths.TIMEOUT, metrics), metrics));
                }
            }
        }
    }

    /** The sections after the valkey one, with the smoke's one PostgreSQL cluster if it has one. */
    private static void run(Mode mode, Set<String> only, String rows, List<Section> sections,
                            Map<String, String> servers, BoundarySection boundary, ExactnessSection burst,
                            HotKeySection hotKey, WaitsSection waits, Optional<PostgresCluster> smokeCluster, Path http)
            throws Exception {
        boolean boundaries = only.contains("boundary");
        boolean bursts = only.contains("burst");
        boolean hotKeys = only.contains("hotkey");
        boolean waiting = only.contains("waits");
        if (only.contains("postgres") || boundaries || bursts || hotKeys || waiting) {
            try (PostgresCluster own = smokeCluster.isEmpty() ? PostgresCluster.start() : null;
                 PostgresRig postgres = new PostgresRig(smokeCluster.orElse(own))) {
                PostgresCluster cluster = smokeCluster.orElse(own);
                servers.put("PostgreSQL", postgres.server());
                if (only.contains("postgres")) {
                    sections.add(step("postgres", () -> StoreSection.run(mode, postgres, rows)));
                }
                if (boundaries) {
                    try (LibraryPaths.Store store = LibraryPaths.postgres(cluster.jdbcUrl(), LibraryPaths.TIMEOUT,
                            RateLimiterMetrics.NONE)) {
                        boundary.measure("PostgreSQL", store.limiter());
                    }
                }
                if (bursts) {
                    burst.measure("PostgreSQL", 2, () -> {
                        RateLimiterMetrics metrics = LibraryPaths.metrics();
                        return LibraryPaths.Decision.shared(ExactnessSection.buckets(), LibraryPaths.postgres(
                                cluster.jdbcUrl(), ExactnessSection.DEADLINE, metrics), metrics);
                    });
                }
                if (hotKeys) {
                    hotKey.measure("PostgreSQL", leases -> {
                        RateLimiterMetrics metrics = LibraryPaths.metrics();
                        return LibraryPaths.Decision.shared(hotKey.buckets(), LibraryPaths.postgres(
                                cluster.jdbcUrl(), LibraryPaths.TIMEOUT, metrics), metrics, leases);
                    });
                }
                if (waiting) {
                    RateLimiterMetrics metrics = LibraryPaths.metrics();
                    waits.measure("PostgreSQL", LibraryPaths.Decision.shared(waits.buckets(), LibraryPaths.postgres(
                            cluster.jdbcUrl(), LibraryPaths.TIMEOUT, metrics), metrics));
                }
            }
        }
        if (boundaries) {
            sections.add(boundary.section());
        }
        if (bursts) {
            sections.add(burst.section());
        }
        if (hotKeys) {
            sections.add(hotKey.section());
        }
        if (waiting) {
            sections.add(waits.section());
        }
        if (only.contains("outage")) {
            sections.add(step("outage", () -> OutageSection.run(mode, smokeCluster)));
        }
        if (only.contains("http")) {
            sections.add(step("http", () -> HttpSection.run(mode, http)));
        }
    }

    private interface Step {
        Section run() throws Exception;
    }

    private static Section step(String name, Step step) throws Exception {
        long began = System.nanoTime();
        System.out.println("bench: " + name + "...");
        Section section = step.run();
        System.out.printf("bench: %s done in %.1f s%n", name, (System.nanoTime() - began) / 1e9);
        return section;
    }
}
