package dev.ratelimiter.docs;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link DocsCheck#designCoverage} on a small checkout made for each test. */
class DesignCoverageTest {

    @TempDir
    Path root;

    @Test
    @DisplayName("a module or a library package the page does not name is reported; other modules' packages are not "
            + "looked for")
    void unnamedModulesAndPackagesReported() throws IOException {
        write("pom.xml", "<project/>");
        write("limiter-impl/pom.xml", "<project/>");
        write("limiter-it/pom.xml", "<project/>");
        write("limiter-it/payara/pom.xml", "<project/>");
        write("limiter-impl/src/main/java/dev/ratelimiter/internal/core/memory/MemoryRateLimiter.java", "class M {}");
        write("limiter-impl/src/main/java/dev/ratelimiter/internal/core/chain/StoreLimiter.java", "class S {}");
        write("limiter-impl/src/main/java/dev/ratelimiter/spi/RateLimitStore.java", "interface R {}");
        write("limiter-example/src/main/java/dev/ratelimiter/example/Login.java", "class L {}");
        write("pages/design.md", "# Design\n\n`limiter-impl` and `limiter-it` hold `core.chain` and `spi`.\n");

        DocsCheck.Report report = new DocsCheck(root).designCoverage("pages/design.md");

        assertThat(report.problems()).containsExactly(
                "pages/design.md: the module payara is not named (`payara`)",
                "pages/design.md: the package core.memory is not named (`core.memory`)");
        assertThat(report.checked()).isEqualTo(6);
    }

    private void write(String path, String text) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
