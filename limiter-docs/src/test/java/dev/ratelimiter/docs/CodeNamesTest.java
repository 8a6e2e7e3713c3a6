package dev.ratelimiter.docs;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link DocsCheck#codeNames} on a small checkout made for each test. */
class CodeNamesTest {

    @TempDir
    Path root;

    @Test
    @DisplayName("a type, package or member the page names but the sources lack is reported with its line")
    void missingNamesReported() throws IOException {
        sources();
        write("pages/design.md", """
                # Design

                `WindowVerdicts` decides, `core.window.MemoryRateLimiter` counts, `Bucket.withPlan` plans
                and `Bucket.Limit` is nested; `RateLimiterContract.REFUND_CASES` lists refunds.
                """);

        DocsCheck.Report report = new DocsCheck(root).codeNames("pages/design.md", Set.of());

        assertThat(report.problems()).containsExactly(
                "pages/design.md:3: `WindowVerdicts` names a type that no Java file of the checkout declares",
                "pages/design.md:3: `core.window.MemoryRateLimiter` names no Java file */core/window/"
                        + "MemoryRateLimiter.java (MemoryRateLimiter is declared in "
                        + "impl/src/main/java/dev/ratelimiter/internal/core/memory/MemoryRateLimiter.java)",
                "pages/design.md:3: `Bucket.withPlan` names withPlan, which no file declaring Bucket contains",
                "pages/design.md:4: `RateLimiterContract.REFUND_CASES` names a type that no Java file of the "
                        + "checkout declares");
        assertThat(report.checked()).isEqualTo(5);
    }

    @Test
    @DisplayName("declared, qualified, JDK and outside names pass; constants, headers, properties and code blocks "
            + "are not names")
    void presentNamesPass() throws IOException {
        sources();
        write("pages/design.md", """
                # Design

                `MemoryRateLimiter`, `core.memory.MemoryRateLimiter`, `Bucket.Limit`, `@RateLimited`,
                `RateLimits.reload()`, `RateLimits#reload`, `InstantSource`, `CompletionStage`, `String`, `Uni`,
                `jakarta.ws.rs.core.Response`, `UNAVAILABLE`, `Retry-After`, `ratelimiter.backend`, `x = Y`.

                ```java
                Missing missing = new Missing();
                ```
                """);

        DocsCheck.Report report = new DocsCheck(root).codeNames("pages/design.md", Set.of("Uni"));

        assertThat(report.problems()).isEmpty();
        assertThat(report.checked()).isEqualTo(10);
    }

    private void sources() throws IOException {
        write("impl/src/main/java/dev/ratelimiter/internal/core/memory/MemoryRateLimiter.java",
                "package dev.ratelimiter.internal.core.memory;\npublic final class MemoryRateLimiter {}\n");
        write("api/src/main/java/dev/ratelimiter/Bucket.java",
                "package dev.ratelimiter;\npublic record Bucket(String name) {\n  public record Limit(long n) {}\n}\n");
        write("api/src/main/java/dev/ratelimiter/RateLimited.java",
                "package dev.ratelimiter;\npublic @interface RateLimited {}\n");
        write("api/src/main/java/dev/ratelimiter/RateLimits.java",
                "package dev.ratelimiter;\npublic interface RateLimits {\n  void reload();\n}\n");
    }

    private void write(String path, String text) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
