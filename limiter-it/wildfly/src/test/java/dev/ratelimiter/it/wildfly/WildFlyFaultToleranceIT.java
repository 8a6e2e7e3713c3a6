package dev.ratelimiter.it.wildfly;

import dev.ratelimiter.it.ExampleApi;
import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.wildfly.ft.FaultToleranceResource;
import dev.ratelimiter.it.wildfly.ft.RetriedService;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URL;
import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @RateLimited} beside SmallRye Fault Tolerance (WildFly's MicroProfile Fault Tolerance) on one bean method.
 * The library's interceptor has priority {@code PLATFORM_BEFORE + 100}, Fault Tolerance's {@code PLATFORM_AFTER +
 * 10}, so the library's runs first, around Fault Tolerance's: a call counts one attempt however often Fault Tolerance
 * retries the body, and a call the library refuses never reaches Fault Tolerance, so it is never retried.
 *
 * <p>SmallRye's own {@code @RateLimit} is in the module {@code io.smallrye.fault-tolerance}, which a deployment sees
 * only through its {@code WEB-INF/jboss-deployment-structure.xml} (src/test/resources/ft).
 */
@ExtendWith(ArquillianExtension.class)
class WildFlyFaultToleranceIT {

    @ArquillianResource
    URL deployment;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return ExampleDeployments.example("ratelimiter.trusted-proxies=127.0.0.1,::1\n" + FaultToleranceResource.CONFIG)
                .addClasses(RetriedService.class, FaultToleranceResource.class)
                .addAsWebInfResource("ft/jboss-deployment-structure.xml", "jboss-deployment-structure.xml");
    }

    @Test
    @DisplayName("@Retry inside @RateLimited: each call counts one attempt while its body runs three times; the "
            + "third call is refused (429) without running the body or being retried: one denied decision")
    void refusalNotRetried() {
        ExampleApi client = client();
        String key = UUID.randomUUID().toString();
        for (int call = 1; call <= 2; call++) {
            HttpResponse<String> retried = client.get("api/ft/retried/" + key);
            assertThat(retried.statusCode()).as("call %d: %s", call, retried.body()).isEqualTo(200);
            assertThat(retried.body()).as("the body's runs in call %d", call).isEqualTo("3");
        }

        HttpResponse<String> refused = client.get("api/ft/retried/" + key);

        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
        assertThat(ExampleApi.json(refused).getString("bucket")).isEqualTo("ft-retry");
        assertThat(client.get("api/ft/invocations/" + key).body()).as("the body's runs in all").isEqualTo("6");
        assertThat(denied("ft-retry")).as("denied decisions of ft-retry: the refusal, once").isEqualTo(1.0);
    }

    @Test
    @DisplayName("SmallRye's @RateLimit (2 per hour) inside @RateLimited (3 per hour): the library counts every call, "
            + "SmallRye's refusal (the third) included, and refuses the fourth itself")
    void smallRyeRateLimitInside() {
        ExampleApi client = client();
        String key = UUID.randomUUID().toString();
        assertThat(client.get("api/ft/twice/" + key).statusCode()).isEqualTo(200);
        assertThat(client.get("api/ft/twice/" + key).statusCode()).isEqualTo(200);
        assertThat(client.get("api/ft/twice/" + key).statusCode()).as("refused by SmallRye").isEqualTo(503);

        HttpResponse<String> refused = client.get("api/ft/twice/" + key);

        assertThat(refused.statusCode()).as("refused by the library").isEqualTo(429);
        assertThat(ExampleApi.json(refused).getString("bucket")).isEqualTo("ft-both");
        assertThat(client.get("api/ft/invocations/" + key).body()).isEqualTo("2");
    }

    private ExampleApi client() {
        return ExampleApi.newClient(ExampleDeployments.loopback(deployment));
    }

    /** The bucket's denied decisions on the management interface's Prometheus registry. */
    private double denied(String bucket) {
        String body = client().get(WildFlyManagement.prometheus()).body();
        Matcher sample = Pattern.compile("rate_limiter_decisions_total\\{[^}]*bucket=\"" + bucket
                + "\"[^}]*outcome=\"denied\"[^}]*plan=\"none\"[^}]*} (\\S+)").matcher(body);
        assertThat(sample.find()).as("a denied sample of %s in:%n%s", bucket, body).isTrue();
        return Double.parseDouble(sample.group(1));
    }
}
