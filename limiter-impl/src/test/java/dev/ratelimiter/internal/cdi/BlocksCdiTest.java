package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.contract.MapStoreProvider;
import dev.ratelimiter.internal.core.chain.LimiterAssembly;
import dev.ratelimiter.testing.LogCapture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Blocks after a refusal through the CDI layer (Weld SE) and the {@code RateLimits} facade, on the embedded memory
 * store and on a shared store (docs/guide.md#blocks-after-a-refusal): the block's {@code Retry-After}, the read that
 * sees it, the reset that lifts it, and a reload that changes it.
 */
class BlocksCdiTest {

    @TempDir
    Path directory;
    private Path file;
    private CdiContainer cdi;

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    /** login: 2 attempts per 15 minutes, blocked an hour after a refusal, up to 4 hours. */
    private RateLimits start(boolean shared) throws IOException {
        file = directory.resolve("limits.properties");
        Files.writeString(file, "");
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.buckets.login.limit", "2",
                "ratelimiter.buckets.login.window", "PT15M",
                "ratelimiter.buckets.login.block", "PT1H",
                "ratelimiter.buckets.login.block-max", "PT4H",
                "ratelimiter.reload.file", file.toString()));
        if (shared) {
            properties.put("ratelimiter.backend", MapStoreProvider.NAME);
        }
        cdi = CdiContainer.start(properties);
        return cdi.select(RateLimits.class);
    }

    /** Two allowed attempts, then the refusal. */
    private static Verdict refusal(RateLimits limits, String login) {
        assertThat(limits.consume("login", login).isAllowed()).isTrue();
        assertThat(limits.consume("login", login).isAllowed()).isTrue();
        Verdict refused = limits.consume("login", login);
        assertThat(refused.outcome()).isEqualTo(Verdict.Outcome.DENIED);
        return refused;
    }

    @Test
    @DisplayName("memory: the refusal blocks the account an hour (Retry-After 3600), a read sees the block, a reset "
            + "(a successful login) lifts it and forgets it")
    void inMemory() throws IOException {
        blockedThenLifted(start(false));
    }

    @Test
    @DisplayName("a shared store: the same")
    void shared() throws IOException {
        blockedThenLifted(start(true));
    }

    private static void blockedThenLifted(RateLimits limits) {
        Verdict refused = refusal(limits, "alice");
        assertThat(refused.retryAfterSeconds()).isEqualTo(3_600);
        assertThat(limits.usage("login", "alice").retryAfterSeconds()).as("a read sees the block").isEqualTo(3_600);
        assertThat(limits.consume("login", "bob").isAllowed()).as("another account").isTrue();

        limits.reset("login", "alice");
        assertThat(refusal(limits, "alice").retryAfterSeconds()).as("lifted, and forgotten: an hour again, not 2")
                .isEqualTo(3_600);
    }

    @Test
    @DisplayName("the startup log names the buckets with blocks and their lengths")
    void startupLog() throws IOException {
        try (LogCapture log = LogCapture.of(LimiterAssembly.class)) {
            start(false).consume("login", "alice"); // the chain is built at the first decision
            assertThat(log.messages(Level.INFO)).contains("Rate limiter: buckets with blocks after a refusal or "
                    + "upstream holds: login (block PT1H up to PT4H)");
        }
    }

    @Test
    @DisplayName("a reload changes the block from the next call: a shorter block-max shortens a longer block, "
            + "removing the block ends blocking")
    void reloaded() throws IOException {
        RateLimits limits = start(false);
        refusal(limits, "alice");

        Files.writeString(file, "ratelimiter.buckets.login.block=PT10M\nratelimiter.buckets.login.block-max=PT10M\n");
        assertThat(limits.reload().changed()).containsExactly("login");
        assertThat(limits.consume("login", "alice").resetAfter()).as("ends within the new longest block")
                .isLessThanOrEqualTo(Duration.ofMinutes(10));

        Files.writeString(file, "ratelimiter.buckets.login.block=\nratelimiter.buckets.login.block-max=\n");
        assertThat(limits.reload().changed()).containsExactly("login");
        assertThat(limits.consume("login", "alice").resetAfter()).as("the window's 15 minutes, no block")
                .isLessThanOrEqualTo(Duration.ofMinutes(15));
    }
}
