package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleApi;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The example's lockout lifted (docs/guide.md#blocks-after-a-refusal), on its deployment with seconds-long windows
 * and locks ({@link PayaraServers#SHORT_LOCKS}), so that the test sees a lock end. One server is enough: locks are
 * the library's own counts, the same on every server, and the scenarios lock an account on every one.
 */
class PayaraLockLiftIT {

    @RegisterExtension
    static final SharedMicro SERVER = PayaraServers.OLDER_CLIENTS;

    @Test
    @DisplayName("after the lock ends the right password logs in, and that successful login clears the account's "
            + "count and forgets its locks: the next lock is the first's length again, not twice it")
    void successfulLoginAfterTheLock() {
        ExampleApi client = ExampleApi.newClient(SERVER.root(PayaraServers.SHORT_LOCKS));
        assertThat(lock(client)).as("the first lock, 6 s").isBetween(5L, 6L);
        assertThat(client.login("dave", "drummer").statusCode()).as("the right password, locked").isEqualTo(429);

        await("the lock's end").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> client.login("dave", "drummer").statusCode() == 200);

        assertThat(lock(client)).as("forgotten by the successful login: 6 s again, not 12").isBetween(5L, 6L);
    }

    /** Five wrong passwords (each 401: nothing counted before), then the refusal: its Retry-After, in seconds. */
    private static long lock(ExampleApi client) {
        for (int i = 1; i <= 5; i++) {
            assertThat(client.login("dave", "guess-" + i).statusCode()).as("attempt %d", i).isEqualTo(401);
        }
        HttpResponse<String> refused = client.login("dave", "guess-6");
        assertThat(refused.statusCode()).isEqualTo(429);
        return Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
    }
}
