package dev.ratelimiter.docs;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * This checkout's pages and the code's citations of them (see {@link DocsCheck}): every relative link and image
 * of every Markdown page names a file, and every {@code #anchor} a heading; every page and heading that code and
 * javadoc cite exist; no code cites a page in the old forms. Links to other sites ({@code https:},
 * {@code mailto:}) are not fetched: there is no network at build time, and a site's pages are not this
 * repository's to keep. Each failure names its file and line, all of them at once.
 */
class RepositoryDocsTest {

    private static final Path ROOT = repositoryRoot();

    @Test
    @DisplayName("every link and image in the Markdown pages leads to a file of the repository, and each #anchor to a "
            + "heading of its page")
    void markdownLinks() {
        DocsCheck check = new DocsCheck(ROOT);
        assertThat(check.markdownFiles()).as("the pages found under " + ROOT)
                .contains(ROOT.resolve("README.md"), ROOT.resolve("CONTRIBUTING.md"), ROOT.resolve("docs/guide.md"),
                        ROOT.resolve("docs/architecture.md"));
        DocsCheck.Report report = check.links();
        assertThat(report.checked()).as("links read").isGreaterThan(50);
        assertNone(report.problems(), "broken links in the Markdown pages");
    }

    @Test
    @DisplayName("every page and heading that code and javadoc cite (docs/<page>.md#<anchor>) exists")
    void citations() {
        DocsCheck.Report report = new DocsCheck(ROOT).citations();
        assertThat(report.checked()).as("citations read").isGreaterThan(50);
        assertNone(report.problems(), "citations of a missing page or heading");
    }

    @Test
    @DisplayName("no code or javadoc cites the front page by a section's title: each cites docs/<page>.md#<anchor>")
    void noOldCitations() {
        DocsCheck.Report report = new DocsCheck(ROOT).oldCitations();
        assertThat(report.checked()).as("source files read").isGreaterThan(300);
        assertNone(report.problems(), "citations in the old form");
    }

    @Test
    @DisplayName("every page of the manual opens with a table of contents that lists its sections in order")
    void tablesOfContents() {
        DocsCheck.Report report = new DocsCheck(ROOT).tablesOfContents();
        assertThat(report.checked()).as("pages read").isGreaterThanOrEqualTo(9);
        assertNone(report.problems(), "tables of contents that differ from their pages");
    }

    /**
     * Names the design pages cite that no file here declares: libraries' types (Jakarta, CDI, Mutiny, OpenTelemetry)
     * and the words of the naming conventions (a limiter's class ends in {@code Limiter}, a provider's in
     * {@code StoreProvider}, a configuration record's in {@code Settings}).
     */
    private static final Set<String> OUTSIDE_THE_CHECKOUT = Set.of("Response", "Startup", "Uni", "Multi",
            "OpenTelemetry", "Limiter", "StoreProvider", "Settings");

    @ParameterizedTest
    @ValueSource(strings = {"docs/architecture.md", "docs/writing-a-store.md"})
    @DisplayName("every class, package-qualified class and member the design pages name exists in the sources")
    void codeNames(String page) {
        DocsCheck.Report report = new DocsCheck(ROOT).codeNames(page, OUTSIDE_THE_CHECKOUT);
        assertThat(report.checked()).as("names read on " + page).isGreaterThan(10);
        assertNone(report.problems(), "names of code that does not exist on " + page);
    }

    @Test
    @DisplayName("the design page names every module and every package of the library's main code")
    void designPageCoversTheCode() {
        DocsCheck.Report report = new DocsCheck(ROOT).designCoverage("docs/architecture.md");
        assertThat(report.checked()).as("modules and packages looked for").isGreaterThan(30);
        assertNone(report.problems(), "modules and packages docs/architecture.md does not name");
    }

    @Test
    @DisplayName("CONTRIBUTING.md's coverage matrix lists every server test class of limiter-it as it is, runs the "
            + "example API on each store and the portability set on each server")
    void coverageMatrix() {
        DocsCheck.Report report = new DocsCheck(ROOT).coverageMatrix("CONTRIBUTING.md", "The coverage matrix",
                Set.of("scenarios", "release"));
        assertThat(report.checked()).as("rows and scenario sets read").isGreaterThan(40);
        assertNone(report.problems(), "differences between the coverage matrix and limiter-it");
    }

    private static void assertNone(List<String> problems, String what) {
        assertThat(problems).withFailMessage("%d %s:%n%s", problems.size(), what, String.join("\n", problems))
                .isEmpty();
    }

    /** The checkout: the surefire property the module's pom sets, else the nearest directory above with mvnw. */
    private static Path repositoryRoot() {
        String property = System.getProperty("repository.root");
        if (property != null) {
            return Path.of(property).toAbsolutePath().normalize();
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("docs"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no checkout above " + Path.of("").toAbsolutePath());
    }
}
