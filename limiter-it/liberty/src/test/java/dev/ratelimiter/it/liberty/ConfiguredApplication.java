package dev.ratelimiter.it.liberty;

import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.awaitility.Awaitility.await;

/**
 * An application deployed on the running Liberty server by a configDropins override that declares it as a
 * {@code webApplication}, rather than through the Arquillian adapter, for two things the adapter cannot do: give a
 * deployment a {@code classloader} element, and report promptly an application that is not started. Liberty logs
 * CWWKZ0012I, not CWWKZ0002E, when a listener (CDI's {@code Startup} event) throws, and the adapter recognises only
 * the latter, so it reports such a start as a failure only once its {@code appDeployTimeout} has run out; here the
 * outcome is read from messages.log as soon as the server logs it.
 */
public final class ConfiguredApplication implements AutoCloseable {

    private static final Duration OUTCOME = Duration.ofSeconds(120);
    private static final Duration REMOVED = Duration.ofSeconds(60);

    private final String name;
    private final Path war;
    private final Path override;
    private final ServerLog log;
    private final boolean started;

    private ConfiguredApplication(String name, Path war, Path override, ServerLog log, boolean started) {
        this.name = name;
        this.war = war;
        this.override = override;
        this.log = log;
        this.started = started;
    }

    /**
     * Deploys {@code archive} as the application {@code name} (exported beside the example's WAR in the build
     * directory), with {@code elements} (XML, such as a {@code classloader} element, or empty) inside its
     * {@code webApplication}, and waits until the server logs that it started (CWWKZ0001I) or did not
     * (CWWKZ0012I, CWWKZ0002E).
     *
     * @throws org.awaitility.core.ConditionTimeoutException when the server logs neither within two minutes
     */
    public static ConfiguredApplication deploy(String name, WebArchive archive, String elements) {
        Path war = Path.of(System.getProperty("example.war")).resolveSibling(name + ".war");
        archive.as(ZipExporter.class).exportTo(war.toFile(), true);
        try {
            Path overrides = Files.createDirectories(Path.of(System.getProperty("liberty.wlp.home"), "usr",
                    "servers", System.getProperty("liberty.server.name"), "configDropins", "overrides"));
            Path override = overrides.resolve("test-" + name + ".xml");
            ServerLog log = ServerLog.mark();
            Files.writeString(override, """
                    <server>
                      <webApplication id="%s" name="%s" location="%s">%s</webApplication>
                    </server>
                    """.formatted(name, name, war.toAbsolutePath(), elements));
            String startedMessage = "CWWKZ0001I: Application " + name + " started";
            String notStarted = "CWWKZ0012I: The application " + name + " was not started";
            String failed = "CWWKZ0002E: An exception occurred while starting the application " + name;
            try {
                await("the start of " + name).atMost(OUTCOME).until(() -> {
                    String text = log.text();
                    return text.contains(startedMessage) || text.contains(notStarted) || text.contains(failed);
                });
            } catch (RuntimeException e) {
                // The next test's deployments must not meet this one still starting.
                Files.deleteIfExists(override);
                throw e;
            }
            return new ConfiguredApplication(name, war, override, log, log.text().contains(startedMessage));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether the server logged the application started. */
    public boolean started() {
        return started;
    }

    /** What the server logged since just before the deployment. */
    public String log() {
        return log.text();
    }

    /**
     * Removes the override and waits until the server has applied that: the application stopped (CWWKZ0009I), or,
     * for one that never started, the configuration updated (CWWKG0017I); then deletes the WAR.
     */
    @Override
    public void close() {
        ServerLog removal = ServerLog.mark();
        try {
            Files.deleteIfExists(override);
            String applied = started ? "CWWKZ0009I: The application " + name + " has stopped" : "CWWKG0017I";
            await("the removal of " + name).atMost(REMOVED).until(() -> removal.text().contains(applied));
            Files.deleteIfExists(war);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
