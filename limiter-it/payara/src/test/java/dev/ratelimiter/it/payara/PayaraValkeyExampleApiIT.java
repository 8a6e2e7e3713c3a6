package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleApiScenarios;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.testing.TestServers;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.URL;
import java.util.UUID;

/**
 * The example API's scenarios on Payara Micro with the Valkey backend on the tests' server
 * ({@link TestServers#valkeyUrl()}). Keys get a prefix of this run's own, so counters left by
 * an earlier run (within their window) cannot disturb it.
 */
@ExtendWith(ArquillianExtension.class)
class PayaraValkeyExampleApiIT extends ExampleApiScenarios {

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() {
        String url = TestServers.valkeyUrl();
        return ExampleDeployments.example("ratelimiter.trusted-proxies=127.0.0.1,::1\n"
                + "ratelimiter.backend=valkey\n"
                + "ratelimiter.valkey.url=" + url + "\n"
                + "ratelimiter.valkey.key-prefix=rl-it-" + UUID.randomUUID().toString().substring(0, 8) + ":\n");
    }

    @Override
    protected URI baseUri() {
        return ExampleDeployments.loopback(deployment);
    }

    @Override
    protected String backend() {
        return "valkey";
    }
}
