package dev.ratelimiter.it;

import java.net.URI;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
/**
 * The outage fallback goes on from what the store said (docs/operations.md#what-the-fallback-knows), seen over HTTP:
 * an account locked in the shared store (5 wrong passwords, then 429) stays locked while the store is down, and one
 * with 2 of its 5 attempts left gets at most 2. The example's {@code login} bucket keeps its default outage policy,
 * {@code fallback}; each server's test takes its store down in between.
 */
public final class FallbackCarryScenario {

    /**
     * What the deployment adds to its store's properties: no refusals kept in memory, so that a refusal during the
     * outage can only come from the fallback.
     */
    public static final String CONFIG = "ratelimiter.deny-cache.max-age=PT0S\n";

    private final ExampleApi client;
    private final String locked = "locked-" + UUID.randomUUID();
    private final String twoLeft = "two-left-" + UUID.randomUUID();

    private FallbackCarryScenario(URI root) {
        this.client = ExampleApi.newClient(root);
    }

    /** Before the outage: locks one account in the store and spends 3 attempts of another. */
    public static FallbackCarryScenario before(URI root) {
        FallbackCarryScenario scenario = new FallbackCarryScenario(root);
        for (int i = 0; i < 5; i++) {
            assertThat(scenario.client.login(scenario.locked, "wrong").statusCode()).as("attempt %d", i + 1)
                    .isEqualTo(401);
        }
        assertThat(scenario.client.login(scenario.locked, "wrong").statusCode()).as("locked in the store")
                .isEqualTo(429);
        for (int i = 0; i < 3; i++) {
            assertThat(scenario.client.login(scenario.twoLeft, "wrong").statusCode()).isEqualTo(401);
        }
        return scenario;
    }

    /**
     * With the store down: the locked account is answered 429 from its first attempt (a fresh budget would answer
     * 401 up to 5 times), and the other gets at most 2 more attempts; no answer is a 5xx.
     */
    public void assertCarried() {
        assertThat(client.login(locked, "wrong").statusCode()).as("the locked account, with the store down")
                .isEqualTo(429);
        int allowed = 0;
        for (int i = 0; i < 4; i++) {
            int status = client.login(twoLeft, "wrong").statusCode();
            assertThat(status).as("the account with 2 left, attempt %d", i + 1).isIn(401, 429);
            allowed += status == 401 ? 1 : 0;
        }
        assertThat(allowed).as("attempts answered 401 (counted) to the account with 2 left").isLessThanOrEqualTo(2);
        assertThat(client.login(locked, "wrong").statusCode()).as("the locked account, still").isEqualTo(429);
    }
}
