package dev.ratelimiter.docs;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DocsCheck#links()} on a small checkout made for each test: what it reports, with file and line, and what
 * it lets pass. (The pages live under pages/, not docs/, and the front page is index.md: this file's text is
 * then no citation of the real pages.)
 */
class MarkdownLinksTest {

    @TempDir
    Path root;

    @Test
    @DisplayName("a link to a missing page, a missing heading or a missing image is reported with its file and line")
    void brokenLinksReported() throws IOException {
        write("pages/guide.md", """
                # Guide

                ## Costs

                See [the front page](../index.md#welcome) and [costs](#costs).
                """);
        write("index.md", """
                # Welcome

                A [guide](pages/guide.md), its [costs](pages/guide.md#costs), a [gone page](pages/gone.md),
                a [gone heading](pages/guide.md#cost), and [this page's](#welcom) heading.

                ![logo](images/logo.png)

                | page | where |
                |---|---|
                | tables | [in a cell](pages/guide.md#tables) |
                """);

        DocsCheck.Report report = new DocsCheck(root).links();

        assertThat(report.problems()).containsExactly(
                "index.md:3: pages/gone.md: no file pages/gone.md",
                "index.md:4: pages/guide.md#cost: no heading #cost in pages/guide.md (nearest: #costs)",
                "index.md:4: #welcom: no heading #welcom in index.md (nearest: #welcome)",
                "index.md:6: images/logo.png: no file images/logo.png",
                "index.md:10: pages/guide.md#tables: no heading #tables in pages/guide.md (nearest: #guide)");
        assertThat(report.checked()).isEqualTo(9);
    }

    @Test
    @DisplayName("a page of the manual whose table of contents misses a section, or lists it out of order, is reported")
    void tablesOfContentsReported() throws IOException {
        write("docs/guide.md", """
                # Guide

                - [Costs](#costs)
                - [Keys](#keys)

                ## Keys

                ## Costs

                ### A subsection is not listed
                """);
        write("docs/stores.md", """
                # Stores

                - [Memory](#memory)

                ## Memory

                ## Valkey
                """);
        write("docs/tour.md", """
                # Tour

                - [Starting](#starting)

                ## Starting
                """);
        write("README.md", "# Front page, no table of contents\n\n## One\n");

        DocsCheck.Report report = new DocsCheck(root).tablesOfContents();

        assertThat(report.checked()).isEqualTo(3);
        assertThat(report.problems()).containsExactly(
                "docs/guide.md: the table of contents lists [costs, keys] but the page's sections are [keys, costs]",
                "docs/stores.md: the table of contents lists [memory] but the page's sections are [memory, valkey]");
    }

    @Test
    @DisplayName("code blocks and code spans hold no links; absolute links are not followed")
    void notLinks() throws IOException {
        write("index.md", """
                # Welcome

                `[not a link](gone.md)`

                ```markdown
                [not a link either](gone.md#nowhere)
                ```

                    [indented code](gone.md)

                [a site](https://example.invalid/gone.md#nowhere), <https://example.invalid/x>,
                [mail](mailto:nobody@example.invalid), [network path](//example.invalid/gone.md)
                """);

        DocsCheck.Report report = new DocsCheck(root).links();

        assertThat(report.problems()).isEmpty();
        assertThat(report.checked()).isEqualTo(4);
    }

    @Test
    @DisplayName("a link to a directory, to a file that is no page (its #fragment unchecked), or from the root")
    void directoriesFilesAndRootPaths() throws IOException {
        write("src/Main.java", "class Main {}\n");
        write("pages/guide.md", "# Guide\n\n[code](../src/), [a line](../src/Main.java#L1), [root](/index.md#welcome)\n");
        write("index.md", "# Welcome\n\n[a space](pages/a%20page.md), [escaped](pages/guide.md#gu%69de)\n");
        write("pages/a page.md", "# A page\n");

        assertThat(new DocsCheck(root).links().problems()).isEmpty();
    }

    @Test
    @DisplayName("a link that leaves the repository is reported, even to a file that exists there")
    void outsideTheRepository() throws IOException {
        Path checkout = root.resolve("checkout");
        write("outside.md", "# Outside\n");
        Files.createDirectories(checkout);
        Files.writeString(checkout.resolve("index.md"), "# Welcome\n\n[outside](../outside.md)\n");

        assertThat(new DocsCheck(checkout).links().problems())
                .containsExactly("index.md:3: ../outside.md: leaves the repository");
    }

    @Test
    @DisplayName("pages under target/ and .git/ are build output and history, not pages: they are not read")
    void buildOutputSkipped() throws IOException {
        write("index.md", "# Welcome\n");
        write("module/target/classes/copied.md", "[gone](gone.md)\n");
        write(".git/info/page.md", "[gone](gone.md)\n");

        assertThat(new DocsCheck(root).markdownFiles()).containsExactly(root.resolve("index.md"));
        assertThat(new DocsCheck(root).links().problems()).isEmpty();
    }

    private void write(String path, String text) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
