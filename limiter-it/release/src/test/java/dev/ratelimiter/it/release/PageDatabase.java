package dev.ratelimiter.it.release;

import dev.ratelimiter.testing.TestServers;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The page's database of its own, stood for by a new schema of the tests' PostgreSQL, made and migrated with the
 * page's loop ({@link #MIGRATE_BY_HAND}) at once; {@link #close()} drops it.
 */
final class PageDatabase implements AutoCloseable {

    final TestServers.Postgres postgres = TestServers.postgres();
    final String schema = "release_" + Long.toString(System.nanoTime(), 36);
    /** psql's own variables, as the page exports them, for the tests' server, in the schema. */
    private final Map<String, String> psql = new LinkedHashMap<>(psqlEnvironment(postgres));

    /** docs/servers.md's loop that applies the migrations by hand, in version order (today the one baseline). */
    static final String MIGRATE_BY_HAND = "ls \"$RATELIMITER_CHECKOUT\"/migrations/postgres/V*.sql | sort -V "
            + "| while read -r file; do psql -q -v ON_ERROR_STOP=1 -f \"$file\" || exit 1; done";

    /** docs/servers.md's query of the counter table, which shows the keys hashed. */
    static final String SELECT_ROWS = "psql -c 'select bucket, key from rate_limit_counters'";

    /** @param checkout the checkout whose migrations/postgres the page's loop applies */
    PageDatabase(Path checkout) throws IOException {
        assertThat(Shell.bash("psql -q -v ON_ERROR_STOP=1 -c 'create schema " + schema + "'", psql)).isEmpty();
        psql.put("PGOPTIONS", "-c search_path=" + schema);
        Map<String, String> migration = new LinkedHashMap<>(psql);
        migration.put("RATELIMITER_CHECKOUT", checkout.toString());
        try {
            assertThat(Shell.bash(MIGRATE_BY_HAND, migration)).as("the page's migration loop prints nothing").isEmpty();
        } catch (IOException | RuntimeException | AssertionError e) {
            close();
            throw e;
        }
    }

    /** The page's query of the counters: rows of a bucket and a key hashed, none holding a login or address. */
    void assertRowsHashed() throws IOException {
        List<String> rows = Shell.bash(SELECT_ROWS + " --tuples-only --no-align", psql).lines().toList();
        assertThat(rows).as("the table's rows, bucket|key").isNotEmpty()
                .allMatch(row -> row.matches("[a-z-]+\\|[A-Za-z0-9_-]{43}"))
                .anyMatch(row -> row.startsWith("login|")).anyMatch(row -> row.startsWith("api-anonymous|"))
                .noneMatch(row -> row.contains("alice") || row.contains("carol") || row.contains("127.0.0.1"));
    }

    @Override
    public void close() throws IOException {
        Map<String, String> outside = new LinkedHashMap<>(psql);
        outside.remove("PGOPTIONS");
        Shell.bash("psql -q -c 'drop schema " + schema + " cascade'", outside);
    }

    /** {@code PGHOST}, {@code PGPORT}, {@code PGDATABASE}, {@code PGUSER} and {@code PGPASSWORD} of a server. */
    private static Map<String, String> psqlEnvironment(TestServers.Postgres postgres) {
        URI url = URI.create(postgres.url().substring("jdbc:".length()));
        Map<String, String> environment = new LinkedHashMap<>(Map.of("PGHOST", url.getHost(),
                "PGPORT", String.valueOf(url.getPort() < 0 ? 5432 : url.getPort()),
                "PGDATABASE", url.getPath().substring(1), "PGUSER", postgres.user()));
        if (!postgres.password().isEmpty()) {
            environment.put("PGPASSWORD", postgres.password());
        }
        return environment;
    }

}
