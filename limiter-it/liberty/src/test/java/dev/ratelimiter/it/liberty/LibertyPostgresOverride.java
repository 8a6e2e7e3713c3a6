package dev.ratelimiter.it.liberty;

import dev.ratelimiter.testing.TestServers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;

/**
 * Points server.xml's PostgreSQL variables at a container {@link TestServers} started. The server was configured
 * from the environment before the tests ran, so a container's address reaches it as a configDropins override,
 * which Liberty applies while running; the override is in place once messages.log reports the configuration
 * updated (CWWKG0017I) or unchanged (CWWKG0018I).
 */
public final class LibertyPostgresOverride {

    private static final Pattern CONFIG_UPDATED = Pattern.compile("CWWKG001[78]I");

    private LibertyPostgresOverride() {
    }

    /** Writes the override when {@link TestServers#postgresInContainer()}; does nothing otherwise. */
    public static void applyIfInContainer() {
        if (!TestServers.postgresInContainer()) {
            return;
        }
        TestServers.Postgres server = TestServers.postgres();
        Path serverDir = Path.of(System.getProperty("liberty.wlp.home"), "usr", "servers",
                System.getProperty("liberty.server.name"));
        Path log = Path.of(System.getProperty("liberty.server.logs"), "messages.log");
        try {
            long before = updates(log);
            Path overrides = Files.createDirectories(serverDir.resolve("configDropins/overrides"));
            Files.writeString(overrides.resolve("test-postgres.xml"), """
                    <server>
                      <variable name="RATELIMITER_TEST_POSTGRES_URL" value="%s"/>
                      <variable name="RATELIMITER_TEST_POSTGRES_USER" value="%s"/>
                      <variable name="RATELIMITER_TEST_POSTGRES_PASSWORD" value="%s"/>
                    </server>
                    """.formatted(xml(server.url()), xml(server.user()), xml(server.password())));
            await().atMost(Duration.ofSeconds(30)).until(() -> updates(log) > before);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String xml(String text) {
        return text.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;");
    }

    private static long updates(Path log) throws IOException {
        Matcher matcher = CONFIG_UPDATED.matcher(Files.readString(log));
        long count = 0;
        while (matcher.find()) {
            count++;
        }
        return count;
    }
}
