package dev.ratelimiter.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Whether a design page names every module and every package of the checkout, so that a module or package added,
 * split or renamed cannot be left off the page that maps the code (docs/architecture.md#modules).
 *
 * <ul>
 *   <li>A module is a directory with a {@code pom.xml} directly under the root, or under a module that has
 *   modules of its own ({@code limiter-it/payara}); the page names it by its directory's name in a code span
 *   ({@code `limiter-impl`}, {@code `payara`}).</li>
 *   <li>A package is a directory under {@code src/main/java/dev/ratelimiter/} of a library module
 *   ({@code limiter-api}, {@code limiter-impl}, {@code limiter-store-*}: what an application deploys; the
 *   example, the tests' servers, the benchmarks and this checker are named as modules) that holds a
 *   {@code .java} file; the
 *   page names it in a code span from {@code dev.ratelimiter.internal} ({@code `core.memory`},
 *   {@code `cdi.runtime`}, {@code `valkey`}) or, outside {@code internal}, from {@code dev.ratelimiter}
 *   ({@code `spi`}, {@code `jaxrs`}). The API's own package, {@code dev.ratelimiter}, is the module
 *   {@code limiter-api}.</li>
 * </ul>
 * Reads files only.
 */
final class DesignCoverage {

    private static final String SOURCES = "src/main/java/dev/ratelimiter/";

    private final Checkout checkout;

    DesignCoverage(Checkout checkout) {
        this.checkout = checkout;
    }

    /**
     * The modules and packages {@code page} does not name.
     *
     * @param page a Markdown page of the checkout
     * @return how many modules and packages were looked for, and each one missing as {@code path: what}
     */
    DocsCheck.Report check(Path page) {
        Set<String> spans = MarkdownPage.codeSpans(Checkout.read(page)).stream()
                .map(span -> span.code().strip()).collect(Collectors.toSet());
        Set<String> modules = new TreeSet<>();
        Set<String> packages = new TreeSet<>();
        for (Path file : checkout.sourceFiles()) {
            String path = checkout.relative(file);
            if (path.endsWith("/pom.xml") && path.indexOf('/') == path.lastIndexOf('/')) {
                modules.add(path.substring(0, path.indexOf('/')));
            } else if (path.endsWith("/pom.xml") && path.split("/").length == 3) {
                modules.add(path.split("/")[1]);
            } else if (path.endsWith(".java") && path.contains(SOURCES) && library(path)) {
                String directory = path.substring(path.indexOf(SOURCES) + SOURCES.length(), path.lastIndexOf('/') + 1);
                if (!directory.isEmpty()) {
                    String name = directory.substring(0, directory.length() - 1).replace('/', '.');
                    packages.add(name.startsWith("internal.") ? name.substring("internal.".length()) : name);
                }
            }
        }
        List<String> problems = new ArrayList<>();
        for (String module : modules) {
            if (!spans.contains(module)) {
                problems.add(checkout.relative(page) + ": the module " + module + " is not named (`" + module + "`)");
            }
        }
        for (String name : packages) {
            if (!spans.contains(name)) {
                problems.add(checkout.relative(page) + ": the package " + name + " is not named (`" + name + "`)");
            }
        }
        return new DocsCheck.Report(modules.size() + packages.size(), problems);
    }

    private static boolean library(String path) {
        return path.startsWith("limiter-api/") || path.startsWith("limiter-impl/")
                || path.startsWith("limiter-store-");
    }
}
