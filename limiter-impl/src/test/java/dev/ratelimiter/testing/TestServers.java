package dev.ratelimiter.testing;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;

/**
 * The Valkey/Redis and PostgreSQL servers every shared-store test uses (this module's and the server scenarios'),
 * chosen once per test JVM in the order CONTRIBUTING.md#building-and-testing gives: the environment's
 * {@code RATELIMITER_TEST_VALKEY_URL} and {@code RATELIMITER_TEST_POSTGRES_URL} (with {@code _USER}, default
 * postgres, and {@code _PASSWORD}, default empty) when set; else, where Docker runs, a {@code valkey/valkey} or
 * {@code postgres} container started by Testcontainers (stopped by its reaper when the JVM exits); else the
 * machine's own servers, redis://127.0.0.1:6379 and jdbc:postgresql://127.0.0.1:5432/test as postgres. A server that
 * does not answer fails the tests; they never skip.
 */
public final class TestServers {

    /** Where a PostgreSQL server is: a JDBC URL, its user and password (empty for trust authentication). */
    public record Postgres(String url, String user, String password) {
    }

    private static String valkeyUrl;
    private static Postgres postgres;
    private static boolean postgresInContainer;

    private TestServers() {
    }

    /** The Valkey/Redis URL, {@code redis://host:port}. */
    public static synchronized String valkeyUrl() {
        if (valkeyUrl == null) {
            String configured = System.getenv("RATELIMITER_TEST_VALKEY_URL");
            if (configured != null && !configured.isBlank()) {
                valkeyUrl = configured;
            } else if (dockerAvailable()) {
                GenericContainer<?> valkey = new GenericContainer<>("valkey/valkey:8").withExposedPorts(6379);
                valkey.start();
                valkeyUrl = "redis://" + valkey.getHost() + ":" + valkey.getMappedPort(6379);
            } else {
                valkeyUrl = "redis://127.0.0.1:6379";
            }
        }
        return valkeyUrl;
    }

    /** The PostgreSQL server, its database holding the tests' schemas. */
    public static synchronized Postgres postgres() {
        if (postgres == null) {
            String configured = System.getenv("RATELIMITER_TEST_POSTGRES_URL");
            if (configured != null && !configured.isBlank()) {
                postgres = new Postgres(configured,
                        System.getenv().getOrDefault("RATELIMITER_TEST_POSTGRES_USER", "postgres"),
                        System.getenv().getOrDefault("RATELIMITER_TEST_POSTGRES_PASSWORD", ""));
            } else if (dockerAvailable()) {
                GenericContainer<?> container = new GenericContainer<>("postgres:16")
                        .withEnv("POSTGRES_PASSWORD", "test")
                        .withEnv("POSTGRES_DB", "test")
                        .withExposedPorts(5432)
                        .waitingFor(Wait.forLogMessage(".*ready to accept connections.*\\n", 2));
                container.start();
                postgres = new Postgres("jdbc:postgresql://" + container.getHost() + ":"
                        + container.getMappedPort(5432) + "/test", "postgres", "test");
                postgresInContainer = true;
            } else {
                postgres = new Postgres("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
            }
        }
        return postgres;
    }

    /**
     * Whether {@link #postgres()} started a container: a server configured before the tests ran (Open Liberty's
     * server.xml reads the environment) must then be told where it is.
     */
    public static synchronized boolean postgresInContainer() {
        postgres();
        return postgresInContainer;
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }
}
