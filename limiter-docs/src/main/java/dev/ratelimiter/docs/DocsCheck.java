package dev.ratelimiter.docs;

import org.apache.commons.text.similarity.LevenshteinDistance;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks one checkout's documentation against itself: the links of its Markdown pages, and the citations of those
 * pages in its code. Reads files only, never the network.
 *
 * <ul>
 *   <li>{@link #links()}: every relative link and image of every page ({@code *.md}) names an existing file or
 *   directory, relative to the page (a leading '/' from the repository root, as GitHub reads it) and inside the
 *   repository; a {@code #fragment} on a link to a page, or alone (the same page), names a heading of that page
 *   (see {@link GitHubAnchors}). An absolute link ({@code https:}, {@code mailto:}, {@code //host}) is not
 *   followed, and a fragment on a file that is no page (a line of code) is not checked.</li>
 *   <li>{@link #citations()}: every citation in the sources ({@link #sourceFiles()}): a root page
 *   ({@code README.md}, {@code CONTRIBUTING.md}, {@code BENCHMARKS.md}, {@code CHANGELOG.md}) or a path under
 *   {@code docs/} ending in {@code .md}, written from the repository root, optionally with {@code #anchor}, names
 *   an existing page and, with an anchor, one of its headings. Part of a longer path or a URL is not a
 *   citation.</li>
 *   <li>{@link #oldCitations()}: no source names the front page other than as {@code README.md} (its sections
 *   moved to the pages under docs/, so a section cited by its title after the front page's name points nowhere),
 *   nor cites a section by its quoted title after the name of its page, a comma between them.</li>
 * </ul>
 * The files read are {@link Checkout}'s.
 */
public final class DocsCheck {

    /** The one form of a citation in code and javadoc, which every problem of {@link #oldCitations()} names. */
    public static final String CITATION_FORM =
            "docs/<page>.md#<anchor> (README.md#<anchor>, CONTRIBUTING.md#<anchor> at the root)";

    /** To name the heading a broken anchor most likely meant. */
    private static final LevenshteinDistance EDIT_DISTANCE = LevenshteinDistance.getDefaultInstance();

    /** A scheme ({@code https:}, {@code mailto:}) or a network path ({@code //host}): not a file of the checkout. */
    private static final Pattern ABSOLUTE = Pattern.compile("^(?:[A-Za-z][A-Za-z0-9+.-]*:|//)");

    // R[E]ADME: written so that this file's own pattern is no mention of the page by name (see OLD_FORMS).
    private static final Pattern CITATION = Pattern.compile(
            "(?<![\\w/.-])((?:R[E]ADME|CONTRIBUTING|BENCHMARKS|CHANGELOG)\\.md|docs/(?:[\\w.-]+/)*[\\w-]+\\.md)(?!\\w)"
                    + "(?:#([\\p{L}\\p{N}_-]+))?");

    private static final List<Pattern> OLD_FORMS = List.of(
            // the front page named without its file name: possessive with a section's title, quoted or not, after
            // a comma or a colon, or a mere mention (as the page shows)
            Pattern.compile("\\bR[E]ADME\\b(?!\\.md)"),
            // a page, a comma, then a section's title in quotes, on the same line or the next
            Pattern.compile("\\.md,\\s*(?:(?:\\*|//|--|#)\\s*)?\""));

    /**
     * What a check found.
     *
     * @param checked  how many links, citations or files it read, so that a run that found nothing shows
     * @param problems each problem as {@code path:line: what}, in file order
     */
    public record Report(int checked, List<String> problems) {
    }

    private final Path root;
    private final Checkout checkout;
    private final Map<Path, MarkdownPage> pages = new HashMap<>();

    /** A check of the checkout at {@code root}. */
    public DocsCheck(Path root) {
        this.checkout = new Checkout(root);
        this.root = checkout.root();
    }

    /** Every Markdown page of the checkout, in path order ({@link Checkout#markdownFiles()}). */
    public List<Path> markdownFiles() {
        return checkout.markdownFiles();
    }

    /** The source files whose citations are checked ({@link Checkout#sourceFiles()}). */
    public List<Path> sourceFiles() {
        return checkout.sourceFiles();
    }

    /** The links and images of every Markdown page. */
    public Report links() {
        int checked = 0;
        List<String> problems = new ArrayList<>();
        for (Path file : markdownFiles()) {
            for (MarkdownPage.Destination link : page(file).links()) {
                checked++;
                String problem = linkProblem(file, link.destination());
                if (problem != null) {
                    problems.add(where(file, link.line()) + problem);
                }
            }
        }
        return new Report(checked, problems);
    }

    /**
     * The tables of contents: every page under {@code docs/}, and {@code CONTRIBUTING.md}, opens with a list of
     * links to each of its level-2 headings, in page order, before the first of them.
     */
    public Report tablesOfContents() {
        List<Path> manual = markdownFiles().stream().filter(file -> {
            Path relative = root.relativize(file);
            return relative.startsWith("docs") || relative.toString().equals("CONTRIBUTING.md");
        }).toList();
        List<String> problems = new ArrayList<>();
        for (Path file : manual) {
            MarkdownPage page = page(file);
            if (!page.contents().equals(page.sections())) {
                problems.add(root.relativize(file) + ": the table of contents lists " + page.contents()
                        + " but the page's sections are " + page.sections());
            }
        }
        return new Report(manual.size(), problems);
    }

    /**
     * The coverage matrix of a page, against the server tests of {@code limiter-it} (see {@link CoverageMatrix}).
     *
     * @param page    the page, from the checkout's root ({@code CONTRIBUTING.md})
     * @param heading the text of the level-2 heading the matrix's tables are under
     * @param outside modules of {@code limiter-it} the matrix does not cover
     */
    public Report coverageMatrix(String page, String heading, Set<String> outside) {
        return new CoverageMatrix(checkout, outside).check(root.resolve(page), heading);
    }

    /**
     * The Java names that one page cites in its code spans (see {@link CodeNames}): each type is declared in the
     * checkout, each package-qualified type lies in that package, each member is in its type's file.
     *
     * @param page    the page, from the checkout's root ({@code docs/architecture.md})
     * @param outside simple names the page may cite that the checkout does not declare (a library's types)
     */
    public Report codeNames(String page, Set<String> outside) {
        return new CodeNames(checkout, outside).check(root.resolve(page));
    }

    /**
     * Whether one page names every module and every main package of the checkout (see {@link DesignCoverage}).
     *
     * @param page the page, from the checkout's root ({@code docs/architecture.md})
     */
    public Report designCoverage(String page) {
        return new DesignCoverage(checkout).check(root.resolve(page));
    }

    /** The citations of pages in every source file. */
    public Report citations() {
        int checked = 0;
        List<String> problems = new ArrayList<>();
        for (Path file : sourceFiles()) {
            List<String> lines = Checkout.read(file).lines().toList();
            for (int i = 0; i < lines.size(); i++) {
                Matcher citation = CITATION.matcher(lines.get(i));
                while (citation.find()) {
                    checked++;
                    String problem = citationProblem(citation.group(1), citation.group(2));
                    if (problem != null) {
                        problems.add(where(file, i + 1) + problem);
                    }
                }
            }
        }
        return new Report(checked, problems);
    }

    /** Citations in the old forms, in every source file. */
    public Report oldCitations() {
        List<Path> files = sourceFiles();
        List<String> problems = new ArrayList<>();
        for (Path file : files) {
            String text = Checkout.read(file);
            List<int[]> found = new ArrayList<>();
            for (Pattern form : OLD_FORMS) {
                Matcher old = form.matcher(text);
                while (old.find()) {
                    found.add(new int[] {old.start(), old.end()});
                }
            }
            found.sort(Comparator.comparingInt(match -> match[0]));
            int lastLine = 0;
            for (int[] match : found) {
                int lineNumber = lineNumber(text, match[0]);
                if (lineNumber == lastLine) {
                    continue; // one problem per line
                }
                lastLine = lineNumber;
                int lineStart = text.lastIndexOf('\n', match[0]) + 1;
                int lineEnd = text.indexOf('\n', match[0]);
                String line = text.substring(lineStart, lineEnd < 0 ? text.length() : lineEnd).strip();
                problems.add(where(file, lineNumber) + "cites a page in the old form (\"" + line + "\"); write "
                        + CITATION_FORM);
            }
        }
        return new Report(files.size(), problems);
    }

    private String linkProblem(Path file, String destination) {
        if (destination.isEmpty()) {
            return "a link without a destination";
        }
        if (ABSOLUTE.matcher(destination).find()) {
            return null;
        }
        int hash = destination.indexOf('#');
        String path = hash < 0 ? destination : destination.substring(0, hash);
        String fragment = hash < 0 ? null : decode(destination.substring(hash + 1));
        int query = path.indexOf('?');
        path = decode(query < 0 ? path : path.substring(0, query));
        Path target;
        if (path.isEmpty()) {
            target = file;
        } else if (path.startsWith("/")) {
            target = root.resolve(path.substring(1)).normalize();
        } else {
            target = file.getParent().resolve(path).normalize();
        }
        if (!target.startsWith(root)) {
            return destination + ": leaves the repository";
        }
        if (!Files.exists(target)) {
            return destination + ": no file " + checkout.relative(target);
        }
        if (fragment == null || fragment.isEmpty() || !isPage(target)) {
            return null;
        }
        return headingProblem(destination, target, fragment);
    }

    private String citationProblem(String path, String anchor) {
        Path target = root.resolve(path).normalize();
        String cited = anchor == null ? path : path + "#" + anchor;
        if (!Files.isRegularFile(target)) {
            return cited + ": no file " + path;
        }
        return anchor == null ? null : headingProblem(cited, target, anchor);
    }

    private String headingProblem(String cited, Path page, String anchor) {
        Set<String> anchors = page(page).anchors();
        if (anchors.contains(anchor)) {
            return null;
        }
        String nearest = anchors.stream()
                .min(Comparator.comparingInt(candidate -> EDIT_DISTANCE.apply(candidate, anchor))).orElse(null);
        return cited + ": no heading #" + anchor + " in " + checkout.relative(page)
                + (nearest == null ? " (it has no heading)" : " (nearest: #" + nearest + ")");
    }

    private MarkdownPage page(Path file) {
        return pages.computeIfAbsent(file, f -> MarkdownPage.parse(Checkout.read(f)));
    }

    private static boolean isPage(Path file) {
        return Files.isRegularFile(file) && file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".md");
    }

    private String where(Path file, int line) {
        return checkout.relative(file) + ":" + line + ": ";
    }

    private static int lineNumber(String text, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    /** Percent-decoding of a link's path or fragment ('+' stays '+', as in a URL's path). */
    private static String decode(String text) {
        return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

}
