package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.cdi.runtime.SettingsReloader;
import dev.ratelimiter.spi.ConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Limits changed while the application runs (docs/live-limits.md): the reload file wins over the other sources, a
 * reload applies a good value from the next call and keeps a bad one out (naming the property) until it is fixed, a
 * lowered limit applies to the count already made, a limit below a method's cost is refused, modes and plans follow,
 * and the interval reloads on its own.
 */
class LiveLimitsCdiTest {

    @TempDir
    Path directory;

    private CdiContainer cdi;
    private Path file;

    @ApplicationScoped
    public static class Reports {
        @RateLimited(bucket = "reports")
        public String run(@RateLimitKey String tenant) {
            return tenant;
        }

        @RateLimited(bucket = "exports", cost = 3)
        public String export(@RateLimitKey String tenant) {
            return tenant;
        }
    }

    private void start(String fileText, Map<String, String> extra) throws IOException {
        file = directory.resolve("limits.properties");
        Files.writeString(file, fileText);
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.reload.file", file.toString(),
                "ratelimiter.buckets.reports.limit", "10",
                "ratelimiter.buckets.reports.window", "PT1M",
                "ratelimiter.buckets.exports.limit", "6",
                "ratelimiter.buckets.exports.window", "PT1M"));
        properties.putAll(extra);
        cdi = CdiContainer.start(properties, Reports.class);
    }

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    private int allowed(String tenant, int calls) {
        int allowed = 0;
        for (int i = 0; i < calls; i++) {
            try {
                cdi.select(Reports.class).run(tenant);
                allowed++;
            } catch (RateLimitExceededException e) {
                // refused
            }
        }
        return allowed;
    }

    private RateLimits limits() {
        return cdi.select(RateLimits.class);
    }

    @Test
    @DisplayName("the reload file wins over the application's properties from the start")
    void fileWins() throws IOException {
        start("ratelimiter.buckets.reports.limit=4\n", Map.of());
        assertThat(allowed("acme", 6)).isEqualTo(4);
    }

    @Test
    @DisplayName("a limit lowered in the file applies from the next call, to the count already made")
    void loweredLimitApplies() throws IOException {
        start("ratelimiter.buckets.reports.limit=8\n", Map.of());
        assertThat(allowed("acme", 3)).isEqualTo(3);
        Files.writeString(file, "ratelimiter.buckets.reports.limit=4\n");
        RateLimits.Reload reload = limits().reload();
        assertThat(reload.changed()).containsExactly("reports");
        assertThat(reload.rejected()).isEmpty();
        assertThat(allowed("acme", 5)).as("3 counted under 8 leave 1 under 4").isEqualTo(1);
        assertThat(limits().bucket("reports").limit()).isEqualTo(4);
    }

    @Test
    @DisplayName("a rate bucket turned into a concurrency bucket by a reload is kept out until a restart, naming the "
            + "property: its methods' checks run at startup")
    void concurrencyAtRestartOnly() throws IOException {
        start("ratelimiter.buckets.reports.limit=4\n", Map.of());
        Files.writeString(file, "ratelimiter.buckets.reports.concurrency=2\n");
        RateLimits.Reload reload = limits().reload();
        assertThat(reload.changed()).isEmpty();
        assertThat(reload.rejected()).singleElement().asString().isEqualTo("ratelimiter.buckets.reports.concurrency: "
                + "bucket 'reports' would turn into a concurrency bucket; that applies after a restart");
        assertThat(limits().bucket("reports").isConcurrency()).isFalse();
        assertThat(allowed("acme", 6)).isEqualTo(4);
    }

    @Test
    @DisplayName("a bad value is kept out, naming the property; the bucket keeps its limit until the value is fixed")
    void badValueKeptOut() throws IOException {
        start("ratelimiter.buckets.reports.limit=4\n", Map.of());
        Files.writeString(file, "ratelimiter.buckets.reports.limit=four\n");
        RateLimits.Reload reload = limits().reload();
        assertThat(reload.changed()).isEmpty();
        assertThat(reload.rejected()).singleElement().asString()
                .startsWith("ratelimiter.buckets.reports.limit: 'four' is not a whole number");
        assertThat(cdi.select(SettingsReloader.class).rejected()).isEqualTo(reload.rejected());
        assertThat(allowed("acme", 6)).isEqualTo(4);
        Files.writeString(file, "ratelimiter.buckets.reports.limit=5\n");
        reload = limits().reload();
        assertThat(reload.rejected()).isEmpty();
        assertThat(cdi.select(SettingsReloader.class).rejected()).isEmpty();
        assertThat(limits().bucket("reports").limit()).isEqualTo(5);
    }

    @Test
    @DisplayName("one bucket's bad value does not hold back another bucket's good one")
    void badBucketAlone() throws IOException {
        start("", Map.of());
        Files.writeString(file, "ratelimiter.buckets.reports.window=PT0S\nratelimiter.buckets.exports.limit=9\n");
        RateLimits.Reload reload = limits().reload();
        assertThat(reload.changed()).containsExactly("exports");
        assertThat(reload.rejected()).singleElement().asString().startsWith("ratelimiter.buckets.reports.window");
        assertThat(limits().bucket("exports").limit()).isEqualTo(9);
        assertThat(limits().bucket("reports").window()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    @DisplayName("a limit below what a method counts per call is kept out, naming the method")
    void limitBelowStaticCost() throws IOException {
        start("", Map.of());
        Files.writeString(file, "ratelimiter.buckets.exports.limit=2\n");
        RateLimits.Reload reload = limits().reload();
        assertThat(reload.rejected()).singleElement().asString()
                .startsWith("ratelimiter.buckets.exports.limit: @RateLimited(cost = 3) on ")
                .contains("Reports#export(String)");
        assertThat(limits().bucket("exports").limit()).isEqualTo(6);
    }

    @Test
    @DisplayName("a bucket switched to shadow mode lets its refusals through from the next call")
    void modeFollows() throws IOException {
        start("ratelimiter.buckets.reports.limit=2\n", Map.of());
        assertThat(allowed("acme", 3)).isEqualTo(2);
        Files.writeString(file, "ratelimiter.buckets.reports.limit=2\nratelimiter.buckets.reports.mode=shadow\n");
        assertThat(limits().reload().changed()).containsExactly("reports");
        assertThat(allowed("acme", 3)).isEqualTo(3);
    }

    @Test
    @DisplayName("buckets are neither added nor removed while running: both are reported and left until a restart")
    void noBucketAddedOrRemoved() throws IOException {
        start("", Map.of());
        Files.writeString(file, "ratelimiter.buckets.imports.limit=5\nratelimiter.buckets.imports.window=PT1M\n");
        RateLimits.Reload reload = limits().reload();
        assertThat(reload.rejected()).singleElement().asString()
                .startsWith("ratelimiter.buckets.imports.*: bucket 'imports' is new");
        assertThatThrownBy(() -> limits().bucket("imports")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("every ratelimiter.reload.interval, a change in the file applies without a call to reload()")
    void intervalReloads() throws IOException {
        start("ratelimiter.buckets.reports.limit=4\n", Map.of("ratelimiter.reload.interval", "PT1S"));
        Files.writeString(file, "ratelimiter.buckets.reports.limit=7\n");
        await().atMost(Duration.ofSeconds(10)).until(() -> limits().bucket("reports").limit() == 7);
        Verdict verdict = limits().consume("reports", "globex");
        assertThat(verdict.limit()).isEqualTo(7);
    }

    @Test
    @DisplayName("a reload file that cannot be read fails the start naming the property")
    void unreadableFileFailsStart() {
        assertThatThrownBy(() -> cdi = CdiContainer.start(Map.of(
                "ratelimiter.reload.file", directory.resolve("missing.properties").toString()), Reports.class))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.reload.file: cannot read");
    }
}
