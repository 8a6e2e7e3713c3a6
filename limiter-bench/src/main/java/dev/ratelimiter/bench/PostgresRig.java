package dev.ratelimiter.bench;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.postgresql.Bucket4jPostgreSQL;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * PostgreSQL's rig: a throwaway cluster of the benchmark's own, the library's store (in decisions/s, and a
 * concurrency permit's take and give-back in pairs/s) and decision path, a bare JDBC loop running the store's
 * statement through a pool with the library's pool settings, {@code pgbench -M prepared} running the same
 * statement, and Bucket4j's PostgreSQL proxy managers (select-for-update and advisory lock) on pools with the same
 * settings.
 */
final class PostgresRig extends StoreRig {

    static final String BARE = "bare JDBC loop";
    static final String TOOL = "pgbench -M prepared";
    static final String BATCHED_TOOL = "pgbench -M prepared, 16 upserts per transaction";
    static final String SELECT_FOR_UPDATE = "Bucket4j 8.14 PostgreSQL (select for update)";
    static final String ADVISORY_LOCK = "Bucket4j 8.14 PostgreSQL (advisory lock)";

    private final PostgresCluster cluster;
    private final String statement;

    PostgresRig(PostgresCluster cluster) throws Exception {
        this.cluster = cluster;
        DataSource pool = pool();
        PostgresStatements.migrate(pool);
        try (Connection connection = pool.getConnection(); Statement ddl = connection.createStatement()) {
            // Bucket4j's default table (BucketTableSettings.getDefault()): a BIGINT id and the state's bytes.
            ddl.execute("CREATE TABLE IF NOT EXISTS bucket (id BIGINT PRIMARY KEY, state BYTEA)");
        }
        this.statement = PostgresStatements.consumeStatement(pool);
    }

    @Override
    String name() {
        return "PostgreSQL";
    }

    @Override
    String server() {
        return cluster.version() + ", a throwaway cluster (`initdb`, `pg_ctl`, `max_connections=300`, "
                + "`synchronous_commit=off` so the figures are not the disk's flush rate, otherwise defaults) on a "
                + "free port. pgbench connects its clients anew at each run and each backend plans the statement "
                + "for itself, so its rate is the mean of its per-second progress (`-P 1`) after each run's first "
                + "2 s (seconds: how many it measured), as the library's contenders are measured after their "
                + "warm-up";
    }

    private DataSource pool() {
        DataSource pool = LibraryPaths.postgresPool(cluster.jdbcUrl());
        keep(() -> LibraryPaths.closePool(pool));
        return pool;
    }

    @Override
    List<Contender> contenders() {
        LibraryPaths.Store store = keep(LibraryPaths.postgres(cluster.jdbcUrl(), LibraryPaths.TIMEOUT,
                RateLimiterMetrics.NONE));
        RateLimiterMetrics metrics = LibraryPaths.metrics();
        LibraryPaths.Decision path = keep(LibraryPaths.Decision.shared(List.of(HOT, SPREAD),
                LibraryPaths.postgres(cluster.jdbcUrl(), LibraryPaths.TIMEOUT, metrics), metrics));
        LibraryPaths.Decision unbatched = keep(LibraryPaths.Decision.shared(List.of(HOT, SPREAD),
                LibraryPaths.postgres(cluster.jdbcUrl(), LibraryPaths.TIMEOUT, metrics, false), metrics));
        DataSource bare = pool();
        ProxyManager<Long> selectForUpdate = Bucket4jPostgreSQL.selectForUpdateBasedBuilder(pool()).build();
        ProxyManager<Long> advisoryLock = Bucket4jPostgreSQL.advisoryLockBasedBuilder(pool()).build();
        return List.of(
                libraryStore(store),
                tokenStore(store),
                slidingStore(store),
                calendarStore(store),
                permitPairs(store),
                libraryPath(path),
                libraryPath(UNBATCHED, unbatched),
                twoBuckets(store, true),
                twoBuckets(store, false),
                Contender.inJvm(BARE, load -> {
                    Bucket bucket = bucket(load);
                    String[] keys = Keys.hashed(load.keys());
                    return thread -> key -> bareCall(bare, bucket, keys[key]);
                }),
                new Pgbench(1),
                new Pgbench(16),
                bucket4j(SELECT_FOR_UPDATE, selectForUpdate),
                bucket4j(ADVISORY_LOCK, advisoryLock));
    }

    /** The store's statement as the store binds it (no bound clock), without its deadlines and checks. */
    private boolean bareCall(DataSource pool, Bucket bucket, String key) throws Exception {
        try (Connection connection = pool.getConnection();
             PreparedStatement call = connection.prepareStatement(statement)) {
            List<String> names = PostgresStatements.parameterNames();
            for (int i = 0; i < names.size(); i++) {
                switch (names.get(i)) {
                    case "bucket" -> call.setString(i + 1, bucket.name());
                    case "key" -> call.setString(i + 1, key);
                    case "now" -> call.setNull(i + 1, Types.TIMESTAMP_WITH_TIMEZONE);
                    case "window_ms" -> call.setLong(i + 1, bucket.window().toMillis());
                    case "cost" -> call.setLong(i + 1, 1);
                    case "limit" -> call.setLong(i + 1, bucket.limit());
                    default -> throw new IllegalStateException("the store's statement binds :" + names.get(i));
                }
            }
            try (ResultSet row = call.executeQuery()) {
                return row.next() && row.getLong(1) > 0;
            }
        }
    }

    private static Contender bucket4j(String name, ProxyManager<Long> proxies) {
        return Contender.inJvm(name, load -> {
            Bucket bucket = bucket(load);
            BucketConfiguration configuration = ValkeyRig.bucket4jConfiguration(bucket);
            Supplier<BucketConfiguration> supplier = () -> configuration;
            long offset = load.hot() ? 0 : 1_000_000; // the hot key's row apart from the spread keys' rows
            return thread -> key -> {
                proxies.builder().build(offset + key, supplier).tryConsume(1);
                return true;
            };
        });
    }

    @Override
    List<Comparison> comparisons() {
        List<Comparison> comparisons = new ArrayList<>(libraryComparisons(BARE, TOOL));
        comparisons.add(Comparison.of(STORE, SELECT_FOR_UPDATE));
        comparisons.add(Comparison.of(STORE, ADVISORY_LOCK));
        comparisons.addAll(batchingComparisons(TOOL, BATCHED_TOOL));
        return comparisons;
    }

    /**
     * {@code pgbench -M prepared} running the store's statement: its parameters become pgbench variables in the
     * order the store binds them ({@link PostgresStatements#parameterNames()}; no bound instant: NULL).
     */
    private final class Pgbench implements Contender {
        private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+)");
        private static final Pattern LATENCY = Pattern.compile("latency average = ([0-9.]+) ms");
        /** Statements per client of a load shorter than a second (in transactions of {@link #perTransaction}). */
        private static final int SMOKE_STATEMENTS = 32;
        /** The first seconds of a full load's run, left out of its rate ({@link PgbenchProgress}). */
        private static final int COLD_SECONDS = 2;
        /** The seconds measured of a full load's run at least, after {@link #COLD_SECONDS}. */
        private static final long MIN_MEASURED_SECONDS = 2;
        private final int perTransaction;

        /** @param perTransaction statements per transaction: 1 (each its own), or that many between BEGIN and COMMIT */
        Pgbench(int perTransaction) {
            this.perTransaction = perTransaction;
        }

        @Override
        public String name() {
            return perTransaction == 1 ? TOOL : BATCHED_TOOL;
        }

        @Override
        public Figure measure(Load load) throws Exception {
            Bucket bucket = bucket(load);
            List<String> names = PostgresStatements.parameterNames();
            StringBuilder script = new StringBuilder(perTransaction == 1 ? "" : "BEGIN;\n");
            for (int n = 0; n < perTransaction; n++) {
                String key = "key" + n;
                script.append(load.hot() ? "\\set " + key + " 0\n"
                        : "\\set " + key + " random(0, " + (load.keys() - 1) + ")\n");
                int parameter = 0;
                for (char c : statement.toCharArray()) {
                    if (c == '?') {
                        String name = names.get(parameter++);
                        script.append(name.equals("now") ? "NULL::timestamptz"
                                : ":" + (name.equals("key") ? key : name));
                    } else {
                        script.append(c);
                    }
                }
                script.append(";\n");
            }
            if (perTransaction > 1) {
                script.append("COMMIT;\n");
            }
            Path file = Files.createTempFile("ratelimiter-pgbench-", ".sql");
            Files.writeString(file, script);
            try {
                long millis = load.warmup().toMillis() + load.duration().toMillis();
                // pgbench runs whole seconds (-T); a load shorter than one, the smoke's, runs a count of
                // statements per client instead (-t), so the smoke does not wait a second per load, and reads the
                // run's overall rate. A full load's run is read from its progress lines, its cold start left out
                // (PgbenchProgress), and lasts a second longer than it measures: under load pgbench sometimes ends
                // before printing its last second's line.
                boolean smoke = millis < 1000;
                List<String> length = smoke
                        ? List.of("-t", String.valueOf(Math.max(1, SMOKE_STATEMENTS / perTransaction)))
                        : List.of("-P", "1", "-T", String.valueOf(COLD_SECONDS
                                + Math.max(MIN_MEASURED_SECONDS, Math.round(millis / 1000.0)) + 1));
                List<String> command = new ArrayList<>(List.of("pgbench", "-n", "-M", "prepared", "-h", "127.0.0.1",
                        "-p", String.valueOf(cluster.port()), "-U", "postgres",
                        "-c", String.valueOf(load.threads()), "-j", String.valueOf(Math.min(load.threads(), 2))));
                command.addAll(length);
                command.addAll(List.of("-D", "bucket=" + bucket.name(),
                        "-D", "window_ms=" + bucket.window().toMillis(), "-D", "cost=1", "-D", "limit=" + bucket.limit(),
                        "-f", file.toString(), "postgres"));
                String output = Tools.run(command);
                if (!smoke) {
                    PgbenchProgress steady = PgbenchProgress.steady(output, COLD_SECONDS);
                    return new Figure(name(), steady.tps() * perTransaction, "decisions/s", Map.of("mean_us",
                            steady.latencyMillis() * 1000 / perTransaction, "seconds", (double) steady.intervals()));
                }
                Matcher tps = TPS.matcher(output);
                Matcher latency = LATENCY.matcher(output);
                if (!tps.find()) {
                    throw new IllegalStateException("pgbench printed no tps: " + output);
                }
                return new Figure(name(), Double.parseDouble(tps.group(1)) * perTransaction, "decisions/s",
                        latency.find() ? Map.of("mean_us", Double.parseDouble(latency.group(1)) * 1000
                                / perTransaction) : Map.of());
            } finally {
                Files.deleteIfExists(file);
            }
        }
    }
}
