package dev.ratelimiter.it.quarkus.startup;

import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.MisconfiguredService;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.LogRecord;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Quarkus application with {@link MisconfiguredService} (a {@code @RateLimited} naming a bucket that is not
 * configured, a {@code @RateLimitKey} on a {@code long}) does not start, and the failure names each method and
 * what to set: the messages the Payara and Open Liberty deployments are checked for
 * ({@link ExampleDeployments#MISCONFIGURED_MESSAGES}); the limiter never logs that it is ready.
 */
class QuarkusStartupValidationTest {

    /*
     * Flat class path: one Quarkus class loader for the application and all its dependencies, as in the packaged
     * application. Without it, limiter-impl, a module of this build, counts as a reloadable workspace module and
     * is left out of the base runtime class loader; the client proxies ArC generates for the library's beans are
     * defined there all the same, so their superclasses come from the JVM's class path (the 'app' loader) while
     * the beans come from the runtime loader: a LinkageError (loader constraint violation on
     * GlobalRateLimitFilter_ClientProxy) before the application gets to its own check.
     */
    @RegisterExtension
    static final QuarkusUnitTest APPLICATION = new QuarkusUnitTest()
            .setFlatClassPath(true)
            .withApplicationRoot(jar -> jar.addClasses(PingResource.class, MisconfiguredService.class))
            // The limiter's own log lines: its key-secret warning (logged as the chain is built, so the capture is
            // shown to work) and never its "ready", which follows the checks.
            .setLogRecordPredicate(record -> "dev.ratelimiter.internal.cdi.runtime.LimiterRuntime".equals(record.getLoggerName()))
            .assertLogRecords(records -> assertThat(records).extracting(LogRecord::getMessage)
                    .anySatisfy(message -> assertThat(message).startsWith("ratelimiter.key-secret is not set"))
                    .noneSatisfy(message -> assertThat(message).startsWith(ExampleDeployments.READY)))
            .assertException(failure -> assertThat(causes(failure)).as("the start failure and its causes")
                    // By name: the application's ConfigurationException comes from Quarkus's class loader.
                    .anySatisfy(cause -> {
                        assertThat(cause.getClass().getName()).isEqualTo(ConfigurationException.class.getName());
                        assertThat(cause.getMessage()).contains(ExampleDeployments.MISCONFIGURED_MESSAGES);
                    }));

    @Test
    @DisplayName("an unknown bucket, a non-string key, an unknown resolver and a missing key parameter stop the start, each method named")
    void misconfigurationStopsTheStart() {
        // Nothing to do here: with assertException, QuarkusUnitTest checks the start in its beforeAll (and fails
        // the test if the application starts) and skips the test methods. This one gives JUnit a test to report.
    }

    private static List<Throwable> causes(Throwable failure) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable cause = failure; cause != null && !chain.contains(cause); cause = cause.getCause()) {
            chain.add(cause);
        }
        return chain;
    }
}
