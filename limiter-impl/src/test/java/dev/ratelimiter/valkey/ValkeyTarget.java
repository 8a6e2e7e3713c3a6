package dev.ratelimiter.valkey;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

/**
 * The Valkey or Redis server the shared-store tests use: {@code RATELIMITER_TEST_VALKEY_URL} when set; else, where
 * Docker runs, a {@code valkey/valkey} container started by Testcontainers; else the machine's own server at
 * {@code redis://127.0.0.1:6379}. A server that does not answer fails the tests; it never skips them.
 */
final class ValkeyTarget {

    private static volatile String url;

    private ValkeyTarget() {
    }

    static synchronized String url() {
        if (url == null) {
            String configured = System.getenv("RATELIMITER_TEST_VALKEY_URL");
            if (configured != null && !configured.isBlank()) {
                url = configured;
            } else if (dockerAvailable()) {
                GenericContainer<?> valkey = new GenericContainer<>("valkey/valkey:8").withExposedPorts(6379);
                valkey.start(); // stopped by Testcontainers' reaper when the JVM exits
                url = "redis://" + valkey.getHost() + ":" + valkey.getMappedPort(6379);
            } else {
                url = "redis://127.0.0.1:6379";
            }
        }
        return url;
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }
}
