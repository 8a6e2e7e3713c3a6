package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleApi;
import dev.ratelimiter.it.ExampleDeployments;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Deployments that must fail on Payara Micro 7, each with the library's message in the server log: bad properties, a
 * secret whose variable is not set, and startup validation of the bindings. Payara Micro goes on running without a
 * failed application and reports nothing else, so each test checks that the application's API is absent and reads
 * the reason from the server's console. The three are deployed, each at its own context root, beside the example
 * that {@link Payara7GlobalKeyResolverIT} runs at {@code /} ({@link PayaraServers#KEYED_AND_FAILING}).
 */
class Payara7StartFailureIT {

    @RegisterExtension
    static final SharedMicro SERVER = PayaraServers.KEYED_AND_FAILING;

    @Test
    @DisplayName("a window under a second and an unknown backend fail the deployment, each naming its property")
    void badPropertiesFailDeployment() {
        assertFailedWith(PayaraServers.BAD_PROPERTIES, ExampleDeployments.BAD_PROPERTY_MESSAGES);
    }

    @Test
    @DisplayName("an unset ${RATE_LIMIT_KEY_SECRET} fails the deployment naming ratelimiter.key-secret; never 'ready'")
    void unresolvedSecretFailsDeployment() {
        assertThat(System.getenv(ExampleDeployments.SECRET_VARIABLE)).as("the variable is unset").isNull();
        assertFailedWith(PayaraServers.UNRESOLVED_SECRET, ExampleDeployments.UNRESOLVED_SECRET_MESSAGES);
    }

    @Test
    @DisplayName("an unknown bucket and a non-string key fail the deployment with messages naming the methods")
    void misconfigurationFailsDeployment() {
        assertFailedWith(PayaraServers.MISCONFIGURED, ExampleDeployments.MISCONFIGURED_MESSAGES);
    }

    /**
     * The application is absent (its path falls to the example at {@code /}, which has no such resource), the log
     * has the messages, and the library said it was ready once only: for the one application that deploys.
     */
    private static void assertFailedWith(String name, List<String> messages) {
        assertThat(ExampleApi.newClient(SERVER.root(name)).get("api/projects").statusCode())
                .as("%s is not deployed", name).isEqualTo(404);
        String log = SERVER.log();
        assertThat(log).contains("CDI deployment failure:").contains(messages);
        Matcher ready = Pattern.compile(Pattern.quote(ExampleDeployments.READY)).matcher(log);
        assertThat(ready.results().count()).as("'%s' in the log: once, for the example at /",
                ExampleDeployments.READY).isEqualTo(1);
    }
}
