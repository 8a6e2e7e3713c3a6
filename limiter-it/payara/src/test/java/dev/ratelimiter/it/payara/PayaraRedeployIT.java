package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.redeploy.RedeployCheck;
import org.jboss.shrinkwrap.api.exporter.ExplodedExporter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.SQLException;
import java.time.Instant;

/**
 * {@link RedeployCheck} on Payara Micro, which redeploys an exploded application in place when the {@code .reload}
 * file at its root changes, once dynamic reloading is on (off in Payara Micro by default). The Arquillian adapter
 * starts a new instance for every deployment instead, so the test starts the instance itself.
 */
class PayaraRedeployIT {

    private Process instance;
    private RedeployCheck check;

    @AfterEach
    void stop() throws InterruptedException {
        if (instance != null) {
            instance.destroyForcibly().waitFor();
        }
        if (check != null) {
            check.close();
        }
    }

    @Test
    @DisplayName("20 redeploys with the library's own PostgreSQL pool leave no class loader, thread or connection")
    void redeploysLeaveNothing() throws IOException, SQLException {
        check = new RedeployCheck();
        Path directory = Files.createTempDirectory("ratelimiter-redeploy-");
        Path application = check.deployment("ROOT.war").as(ExplodedExporter.class)
                .exportExploded(directory.toFile(), "ROOT").toPath();
        Path reload = Files.createFile(application.resolve(".reload"));
        Path preboot = Files.writeString(directory.resolve("preboot.txt"),
                "set configs.config.server-config.admin-service.das-config.dynamic-reload-enabled=true\n");
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        instance = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-jar", System.getProperty("payara.microJar"), "--deploy", application.toString(),
                "--contextroot", "/", "--port", String.valueOf(port), "--nocluster",
                "--prebootcommandfile", preboot.toString())
                .redirectErrorStream(true).redirectOutput(directory.resolve("payara.log").toFile()).start();
        check.assertNothingLeftBehind(URI.create("http://127.0.0.1:" + port + "/"), () -> {
            try {
                Files.setLastModifiedTime(reload, FileTime.from(Instant.now()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }
}
