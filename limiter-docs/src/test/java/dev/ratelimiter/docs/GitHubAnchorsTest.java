package dev.ratelimiter.docs;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/** The anchors of headings, against GitHub's rule and the headings of this repository's pages. */
class GitHubAnchorsTest {

    @ParameterizedTest(name = "{0} -> #{1}")
    @DisplayName("a heading's anchor is the one GitHub links to")
    @CsvSource(delimiter = '|', textBlock = """
            The Valkey / Redis backend                    | the-valkey--redis-backend
            Open Liberty 26.0.0.3                         | open-liberty-26003
            `@ApplicationPath` and the global limit       | applicationpath-and-the-global-limit
            Quarkus 3.33.2 (JVM mode)                     | quarkus-3332-jvm-mode
            What it does, and for whom                    | what-it-does-and-for-whom
            Layers inside `limiter-impl`                  | layers-inside-limiter-impl
            Memory: heap of in-memory counters            | memory-heap-of-in-memory-counters
            HTTP: the example on Payara Micro, limiter on vs off | http-the-example-on-payara-micro-limiter-on-vs-off
            The *PgBouncer* [pool](pages/pool.md)         | the-pgbouncer-pool
            snake_case and -- dashes --                   | snake_case-and----dashes---
            [Unreleased]                                  | unreleased
            Limits up to 10¹², café                       | limits-up-to-10¹²-café
            """)
    void anchor(String heading, String anchor) {
        assertThat(MarkdownPage.parse("## " + heading + "\n").anchors()).containsExactly(anchor);
    }

    @Test
    @DisplayName("a heading met again in one page gets -1, then -2, as on GitHub")
    void repeatedHeadings() {
        MarkdownPage page = MarkdownPage.parse("# Time\n\n## Time\n\ntext\n\n### Time\n\n## Costs\n");
        assertThat(page.anchors()).containsExactly("time", "time-1", "time-2", "costs");
    }

    @Test
    @DisplayName("the anchors do not depend on the machine's locale (a Turkish one lowercases I to a dotless ı)")
    void localeIndependent() {
        Locale before = Locale.getDefault();
        Locale.setDefault(Locale.forLanguageTag("tr-TR"));
        try {
            assertThat(MarkdownPage.parse("## IPv6 CLIENTS\n").anchors()).containsExactly("ipv6-clients");
        } finally {
            Locale.setDefault(before);
        }
    }

    @Test
    @DisplayName("a line that starts with # in a code block is no heading")
    void codeBlocksHaveNoHeadings() {
        MarkdownPage page = MarkdownPage.parse("## Shown\n\n```properties\n# a comment\nx=1\n```\n\n    # indented\n");
        assertThat(page.anchors()).containsExactly("shown");
    }

    @Test
    @DisplayName("an underlined (setext) heading has an anchor too")
    void setextHeading() {
        assertThat(MarkdownPage.parse("Getting started\n===============\n").anchors())
                .containsExactly("getting-started");
    }
}
