package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.redeploy.RedeployCheck;
import org.jboss.shrinkwrap.api.exporter.ExplodedExporter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.SQLException;
import java.time.Instant;

/**
 * {@link RedeployCheck} on Payara Micro 7, which redeploys an exploded application in place when the {@code .reload}
 * file at its root changes, once dynamic reloading is on (off in Payara Micro by default). The Arquillian adapter
 * starts a new instance for every deployment instead, so the test starts the instance itself. Payara 6 runs none:
 * its class loading and Weld integration are Payara 7's older versions, and a leak of the library's shows on either
 * (CONTRIBUTING.md#the-coverage-matrix).
 */
class Payara7RedeployIT {

    /**
     * The fewest that still fail on a leak of one class loader a redeploy ({@link RedeployCheck}): each of Payara's
     * in-place reloads takes the example's whole start, and the servers whose redeploys are cheap run the check's
     * default.
     */
    private static final int REDEPLOYS = 4;

    private MicroInstance instance;
    private RedeployCheck check;

    @AfterEach
    void stop() throws InterruptedException {
        if (instance != null) {
            instance.close();
        }
        if (check != null) {
            check.close();
        }
    }

    @Test
    @DisplayName(REDEPLOYS + " redeploys with the library's own PostgreSQL pool leave no class loader, thread or "
            + "connection")
    void redeploysLeaveNothing() throws IOException, SQLException {
        check = new RedeployCheck();
        Path directory = Files.createTempDirectory("ratelimiter-redeploy-");
        Path application = check.deployment("ROOT.war").as(ExplodedExporter.class)
                .exportExploded(directory.toFile(), "ROOT").toPath();
        Path reload = Files.createFile(application.resolve(".reload"));
        Path preboot = Files.writeString(directory.resolve("preboot.txt"),
                "set configs.config.server-config.admin-service.das-config.dynamic-reload-enabled=true\n");
        instance = MicroInstance.start(application, "--prebootcommandfile", preboot.toString());
        check.assertNothingLeftBehind(instance.root(), REDEPLOYS, () -> {
            try {
                Files.setLastModifiedTime(reload, FileTime.from(Instant.now()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }
}
