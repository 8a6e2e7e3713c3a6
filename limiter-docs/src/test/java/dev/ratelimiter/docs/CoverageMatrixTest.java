package dev.ratelimiter.docs;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link DocsCheck#coverageMatrix} on a small checkout made for each test. */
class CoverageMatrixTest {

    private static final String SETS = """
            | Scenarios | Written in | On every store | On every server |
            |---|---|---|---|
            | example API | `ExampleApiScenarios` | yes | yes |
            | redeploy | - | no | yes |

            """;

    @TempDir
    Path root;

    @Test
    @DisplayName("a matrix true of the tests, with a reason for the one server a set skips, has no problem")
    void trueMatrix() throws IOException {
        servers();
        write("limiter-it/wildfly/src/test/java/it/WildFlyRedeployIT.java", "class WildFlyRedeployIT {}");
        matrix(SETS + """
                | Test class | Server | Module | Scenarios | Store |
                |---|---|---|---|---|
                | `PayaraExampleApiIT` | Payara | payara | example API | memory, Valkey |
                | `WildFlyPostgresExampleApiIT` | WildFly | wildfly | example API | PostgreSQL |
                | `WildFlyRedeployIT` | WildFly | wildfly | redeploy | memory |

                | Scenarios | Server | Why not |
                |---|---|---|
                | redeploy | Payara | Payara Micro's adapter cannot redeploy |
                """);

        DocsCheck.Report report = check();

        assertThat(report.problems()).isEmpty();
        assertThat(report.checked()).isEqualTo(5);
    }

    @Test
    @DisplayName("an unlisted test class, a missing store, a server without a set or reason, a wrong base class, an "
            + "unmentioned store and a missing class are each reported")
    void everyKindOfProblem() throws IOException {
        servers();
        write("limiter-it/wildfly/src/test/java/it/WildFlyRedeployIT.java", "class WildFlyRedeployIT {}");
        write("limiter-it/wildfly/src/test/java/it/WildFlyBase.java", "abstract class WildFlyBase {}");
        write("limiter-it/wildfly/src/test/java/it/WildFlyOddIT.java", "class WildFlyOddIT extends WildFlyBase {}");
        matrix(SETS + """
                | Test class | Server | Module | Scenarios | Store |
                |---|---|---|---|---|
                | `PayaraExampleApiIT` | Payara | payara | example API | memory |
                | `WildFlyOddIT` | WildFly | wildfly | example API | Valkey |
                | `WildFlyGoneIT` | WildFly | wildfly | redeploy | memory |
                """);

        DocsCheck.Report report = check();

        assertThat(report.problems()).containsExactlyInAnyOrder(
                "CONTRIBUTING.md:13: WildFlyOddIT does not extend ExampleApiScenarios (it extends [WildFlyBase])",
                "CONTRIBUTING.md:13: WildFlyOddIT claims Valkey but its source never mentions it",
                "CONTRIBUTING.md:14: WildFlyGoneIT is not a test class of limiter-it/wildfly",
                "CONTRIBUTING.md: WildFlyPostgresExampleApiIT (limiter-it/wildfly) is not in the coverage matrix",
                "CONTRIBUTING.md: WildFlyRedeployIT (limiter-it/wildfly) is not in the coverage matrix",
                "CONTRIBUTING.md:7: \"example API\" runs on no server with the PostgreSQL store",
                "CONTRIBUTING.md:8: \"redeploy\" does not run on Payara and the matrix gives no reason");
    }

    @Test
    @DisplayName("a page without the matrix is a problem, not a pass")
    void missingMatrix() throws IOException {
        servers();
        write("CONTRIBUTING.md", "# Contributing\n\n## The coverage matrix\n\nTo be written.\n");

        assertThat(check().problems()).containsExactly("CONTRIBUTING.md: no coverage matrix under \"## The coverage "
                + "matrix\" (its scenario sets and test classes tables)");
    }

    @Test
    @DisplayName("a server module with no row is reported; the modules outside the matrix are not")
    void moduleWithoutRow() throws IOException {
        servers();
        write("limiter-it/quarkus/pom.xml", "<project/>");
        write("limiter-it/release/pom.xml", "<project/>");
        write("limiter-it/release/src/test/java/it/ReleaseIT.java", "class ReleaseIT {}");
        matrix(SETS + """
                | Test class | Server | Module | Scenarios | Store |
                |---|---|---|---|---|
                | `PayaraExampleApiIT` | Payara | payara | example API | memory, Valkey |
                | `WildFlyPostgresExampleApiIT` | WildFly | wildfly | example API, redeploy | PostgreSQL |
                """);

        assertThat(check().problems()).contains(
                "CONTRIBUTING.md: the module limiter-it/quarkus has no row in the coverage matrix",
                "CONTRIBUTING.md:13: the scenario set \"example API, redeploy\" is not in the scenario sets table")
                .noneMatch(problem -> problem.contains("release"));
    }

    private void servers() throws IOException {
        write("limiter-it/pom.xml", "<project/>");
        write("limiter-it/payara/pom.xml", "<project/>");
        write("limiter-it/wildfly/pom.xml", "<project/>");
        write("limiter-it/scenarios/pom.xml", "<project/>");
        write("limiter-it/scenarios/src/test/java/it/ExampleApiScenarios.java",
                "public abstract class ExampleApiScenarios {}");
        write("limiter-it/scenarios/src/test/java/it/OpsQueriesTest.java", "class OpsQueriesTest {}");
        write("limiter-it/payara/src/test/java/it/PayaraScenarios.java",
                "abstract class PayaraScenarios extends ExampleApiScenarios {}");
        write("limiter-it/payara/src/test/java/it/PayaraExampleApiIT.java",
                "class PayaraExampleApiIT extends PayaraScenarios { String url = \"redis://\"; }");
        write("limiter-it/wildfly/src/test/java/it/WildFlyPostgresExampleApiIT.java",
                "class WildFlyPostgresExampleApiIT extends ExampleApiScenarios { String db = \"postgres\"; }");
    }

    private void matrix(String tables) throws IOException {
        write("CONTRIBUTING.md", "# Contributing\n\n## The coverage matrix\n\n" + tables + "\n## Next\n");
    }

    private DocsCheck.Report check() {
        return new DocsCheck(root).coverageMatrix("CONTRIBUTING.md", "The coverage matrix",
                Set.of("scenarios", "release"));
    }

    private void write(String path, String text) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
