package dev.ratelimiter.it;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The global filter keyed by a resolver: the example deployed with {@link #CONFIG}, so {@code /api/} requests are
 * keyed by the example's {@code tenant} resolver ({@code X-Tenant}), and by the client address without the header.
 */
@ExtendWith(ScenariosNotRun.class)
public abstract class GlobalKeyResolverScenarios {

    /** The configuration these scenarios need beside the server's usual test configuration. */
    public static final String CONFIG = "ratelimiter.api.key-resolver=tenant\n";

    /** The deployment's root, ending with {@code /}. */
    protected abstract URI baseUri();

    @Test
    @DisplayName("ratelimiter.api.key-resolver: two addresses with one X-Tenant share one api-anonymous counter")
    void keyedByTenant() {
        String tenant = "tenant-" + UUID.randomUUID();
        HttpResponse<String> first = ExampleApi.newClient(baseUri()).getWith("api/projects", "X-Tenant", tenant);
        HttpResponse<String> second = ExampleApi.newClient(baseUri()).getWith("api/projects", "X-Tenant",
                tenant.toUpperCase());

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"api-anonymous\";r=119;");
        assertThat(second.headers().firstValue("RateLimit").orElseThrow())
                .as("the same tenant from another address, normalized by the resolver")
                .startsWith("\"api-anonymous\";r=118;");
    }

    @Test
    @DisplayName("ratelimiter.api.key-resolver giving no key (no X-Tenant): keyed by the client address, never a 400")
    void noTenantKeyedByAddress() {
        ExampleApi client = ExampleApi.newClient(baseUri());
        assertThat(client.get("api/projects").headers().firstValue("RateLimit").orElseThrow())
                .startsWith("\"api-anonymous\";r=119;");
        HttpResponse<String> second = client.get("api/projects");
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(second.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"api-anonymous\";r=118;");
        assertThat(ExampleApi.newClient(baseUri()).get("api/projects").headers().firstValue("RateLimit")
                .orElseThrow()).as("another address").startsWith("\"api-anonymous\";r=119;");
    }
}
