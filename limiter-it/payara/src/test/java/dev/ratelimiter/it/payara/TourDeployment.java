package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.docs.CurlTour;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The example as README.md's first command serves it (the WAR as built, at {@code /}), for a test that runs one of
 * the docs' curl tours against it ({@link CurlTour}). Each tour has a deployment of its own, since its counts (such
 * as {@code api-anonymous}'s attempts left) start from a fresh one, and the server's readiness path lists the
 * checks of every application deployed. The tours show Payara Micro's answers (its reason phrase {@code CUSTOM}),
 * so only this module runs them.
 *
 * <p>The pages start the example with {@code RATELIMITER_RELOAD_FILE} naming an empty file of live limits
 * (docs/live-limits.md#the-reload-file); the deployment gets the same as {@code ratelimiter.reload.file} at the
 * environment's ordinal, a file of this test's own, emptied as each tour's deployment is made, which stands for the
 * page's {@value CurlTour#PAGE_LIMITS_FILE} in its commands.
 */
@ExtendWith(ArquillianExtension.class)
abstract class TourDeployment {

    private static final Path LIMITS_FILE = limitsFile();

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() throws IOException {
        Files.writeString(LIMITS_FILE, "");
        JavaArchive environment = ShrinkWrap.create(JavaArchive.class, "tour-environment.jar")
                .addAsManifestResource(new StringAsset("config_ordinal=300\nratelimiter.reload.file="
                        + LIMITS_FILE + "\n"), "microprofile-config.properties");
        return ExampleDeployments.asBuilt().addAsLibrary(environment);
    }

    /** Runs the tour of {@code page} (relative to the checkout), or of its {@code section}, as written. */
    void assertTourAsWritten(String page, String section) {
        CurlTour.assertAnswersAsWritten(page, section, ExampleDeployments.loopback(deployment), LIMITS_FILE);
    }

    private static Path limitsFile() {
        try {
            return Files.createTempFile("example-limits", ".properties");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
