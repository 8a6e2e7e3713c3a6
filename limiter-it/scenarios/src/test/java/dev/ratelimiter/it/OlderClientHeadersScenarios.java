package dev.ratelimiter.it;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fields for older clients ({@code ratelimiter.headers.fields}, docs/reference.md#fields-for-older-clients), read
 * by an independent client library ({@link RateLimitHeaderParser}) from the example's login on a server: an allowed
 * answer and a 429. A server module deploys the example three times ({@link #DRAFT_6}, {@link #X_RATELIMIT} and as
 * it is) and returns their roots.
 */
public abstract class OlderClientHeadersScenarios {

    /**
     * A deployment's extra configuration: the draft-6 fields alone, and no metrics, so the deployment can share a
     * server with the other two without registering its series twice.
     */
    public static final String DRAFT_6 = "ratelimiter.headers.fields=draft-6\nratelimiter.metrics.system=none\n";
    /** A deployment's extra configuration: the X-RateLimit fields alone, and no metrics (as {@link #DRAFT_6}). */
    public static final String X_RATELIMIT = "ratelimiter.headers.fields=x-ratelimit\nratelimiter.metrics.system=none\n";

    /** The root of the example deployed with {@code extraConfig} ({@link #DRAFT_6}, {@link #X_RATELIMIT}, or ""). */
    protected abstract URI baseUri(String extraConfig);

    @Test
    @DisplayName("draft-6: the parser reads the login's limit, what is left and when it resets, on an allowed answer and a 429")
    void draft6() {
        readsTheLoginWindow(DRAFT_6);
    }

    @Test
    @DisplayName("x-ratelimit: the parser reads the login's limit, what is left and when it resets, on an allowed answer and a 429")
    void xRateLimit() {
        readsTheLoginWindow(X_RATELIMIT);
    }

    @Test
    @DisplayName("the default draft-10 fields alone: this parser reads no limit, remaining or reset (why the older forms exist)")
    void draft10Unread() {
        HttpResponse<String> response = ExampleApi.newClient(baseUri("")).login("u-" + UUID.randomUUID(), "guess");
        assertThat(response.headers().firstValue("RateLimit")).isPresent();
        JsonObject parsed = RateLimitHeaderParser.parse(response);
        assertThat(parsed.isNull("limit") && parsed.isNull("remaining")).as(parsed.toString()).isTrue();
    }

    private void readsTheLoginWindow(String config) {
        ExampleApi client = ExampleApi.newClient(baseUri(config));
        String account = "older-client-" + UUID.randomUUID();
        long before = System.currentTimeMillis();
        HttpResponse<String> first = client.login(account, "guess-1");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(401);
        assertThat(first.headers().firstValue("RateLimit")).as("draft-10 left out").isEmpty();
        JsonObject allowed = RateLimitHeaderParser.parse(first);
        // The login bucket (5 per 15 minutes per account) has the fewest left: the most restrictive window.
        assertThat(allowed.getInt("limit")).as(allowed.toString()).isEqualTo(5);
        assertThat(allowed.getInt("remaining")).as(allowed.toString()).isEqualTo(4);
        assertThat(allowed.getJsonNumber("reset_epoch_millis").longValue()).as(allowed.toString())
                .isBetween(before + 899_000, System.currentTimeMillis() + 901_000);

        for (int i = 2; i <= 5; i++) {
            assertThat(client.login(account, "guess-" + i).statusCode()).as("attempt %d", i).isEqualTo(401);
        }
        long refusedAt = System.currentTimeMillis();
        HttpResponse<String> refused = client.login(account, "guess-6");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
        JsonObject denied = RateLimitHeaderParser.parse(refused);
        assertThat(denied.getInt("limit")).as(denied.toString()).isEqualTo(5);
        assertThat(denied.getInt("remaining")).as(denied.toString()).isEqualTo(0);
        long retryAfter = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
        assertThat(denied.getJsonNumber("reset_epoch_millis").longValue()).as("reset matches Retry-After: %s", denied)
                .isBetween(refusedAt + (retryAfter - 2) * 1_000, System.currentTimeMillis() + (retryAfter + 2) * 1_000);
    }
}
