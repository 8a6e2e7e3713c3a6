package dev.ratelimiter.docs;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DocsCheck#citations()} and {@link DocsCheck#oldCitations()} on a small checkout made for each test.
 * The fixtures write {@code ~} for the suffix {@code .md} and {@code @} for the front page's name ({@link #md}),
 * so that this file's own text cites nothing of the real pages.
 */
class CitationsTest {

    private static final String FRONT_PAGE = "READ" + "ME";

    @TempDir
    Path root;

    @Test
    @DisplayName("a citation of a missing page or heading is reported with its file and line; a valid one passes")
    void brokenCitationsReported() throws IOException {
        pages();
        write("src/Foo.java", md("""
                /** Counts per window (docs/guide~#fixed-windows; @~#welcome, @~). */
                // docs/guide~#fixed-window
                // docs/gone~, CHANGELOG~
                // not citations: https://example.invalid/docs/guide~#x, limiter-docs/x~, mydocs/y~
                class Foo {}
                """));
        write("pom.xml", md("<!-- see docs/guide~#nope -->\n"));

        DocsCheck.Report report = new DocsCheck(root).citations();

        assertThat(report.problems()).containsExactly(
                md("pom.xml:1: docs/guide~#nope: no heading #nope in docs/guide~ (nearest: #guide)"),
                md("src/Foo.java:2: docs/guide~#fixed-window: no heading #fixed-window in docs/guide~ "
                        + "(nearest: #fixed-windows)"),
                md("src/Foo.java:3: docs/gone~: no file docs/gone~"),
                md("src/Foo.java:3: CHANGELOG~: no file CHANGELOG~"));
        assertThat(report.checked()).isEqualTo(7);
    }

    @Test
    @DisplayName("sources are Java, XML, properties, SQL, shell, Lua and YAML files, ops/ JSON and .ci/, outside target/")
    void whichFilesAreSources() throws IOException {
        pages();
        String broken = md("docs/gone~\n");
        for (String source : new String[] {"A.java", "pom.xml", "a.properties", "V1.sql", "a.sh", "a.lua", "a.yml",
                "a.yaml", "ops/grafana/d.json", ".ci/run"}) {
            write(source, broken);
        }
        for (String other : new String[] {"target/Gen.java", "m/target/a.xml", "benchmarks.json", "notes.txt"}) {
            write(other, broken);
        }

        assertThat(new DocsCheck(root).citations().problems()).extracting(problem -> problem.split(":")[0])
                .containsExactly(".ci/run", "A.java", "V1.sql", "a.lua", "a.properties", "a.sh", "a.yaml", "a.yml",
                        "ops/grafana/d.json", "pom.xml");
    }

    @ParameterizedTest(name = "{0}")
    @DisplayName("a citation in an old form is reported, and the message gives the form to write")
    @ValueSource(strings = {
        " * attempt refused by any window is counted in none (the @'s \"Fixed windows\").",
        " * the reaction is the same (@: \"Reliability: faults and the tests that prove them\").",
        "        // profile is active (@, \"Configuration profiles\"), so only then",
        " * (see the @, \"Keys from anywhere\")",
        "        // an application's handler, @ \"Refusal responses\")",
        " * (ratelimiter.metrics.system, the @'s Metrics section)",
        " * those of the @'s configuration reference.",
        "    <!-- PUBLISHER values (@, Releasing). -->",
        "# connect without a password (@, Building and testing)",
        " \"description\": \"... the Jakarta Rate Limiter (@, Metrics).\",",
        "-- Apply with its own Flyway location and history table (see the @), so it",
        " * and the library's feature with them, as the @ shows.",
        " * the chain (docs/architecture~, \"The outage chain\").",
        " * the chain (docs/architecture~,\n * \"The outage chain\").",
    })
    void oldFormsReported(String line) throws IOException {
        pages();
        write("src/Old.java", md("class Old {\n" + line + "\n}\n"));

        assertThat(new DocsCheck(root).oldCitations().problems()).singleElement().asString()
                .startsWith("src/Old.java:2: cites a page in the old form")
                .endsWith("write " + DocsCheck.CITATION_FORM);
    }

    @Test
    @DisplayName("the new form, and names that merely contain the page's, are no old form")
    void newFormPasses() throws IOException {
        pages();
        write("src/New.java", md("""
                /** Counted in none of them (docs/guide~#fixed-windows; @~#welcome, BENCHMARKS~). */
                class New { String file = "@~"; String @_URL = "x"; }
                """));

        assertThat(new DocsCheck(root).oldCitations().problems()).isEmpty();
        assertThat(new DocsCheck(root).citations().problems()).isEmpty();
    }

    private void pages() throws IOException {
        write(md("@~"), "# Welcome\n");
        write(md("BENCHMARKS~"), "# Benchmarks\n");
        write(md("docs/guide~"), "# Guide\n\n## Fixed windows\n\n```\n# not a heading\n```\n");
    }

    /** The text with {@code ~} as {@code .md} and {@code @} as the front page's name. */
    private static String md(String text) {
        return text.replace("~", ".md").replace("@", FRONT_PAGE);
    }

    private void write(String path, String text) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
