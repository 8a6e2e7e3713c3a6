package dev.ratelimiter.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Java names a page cites in its code spans, checked against the checkout's Java sources, so that a page which
 * still names a class after it moved, was renamed or was removed fails the build instead of misleading its reader.
 *
 * <p>A code span is read as a Java name when it is one of:
 * <ul>
 *   <li>a type, optionally followed by members: {@code FixedWindows}, {@code Bucket.withPlan},
 *   {@code Verdict.Outcome}, {@code RateLimits.reload()}, {@code @RateLimited}. Its first letter is upper case and it
 *   has a lower-case letter (so {@code UNAVAILABLE} and {@code Retry-After} are not names). The type must be
 *   declared ({@code class}, {@code interface}, {@code record}, {@code enum}, {@code @interface}), top-level or
 *   nested, in a {@code .java} file of the checkout; or be a type of the JDK's {@code java.lang},
 *   {@code java.util}, {@code java.util.concurrent}, {@code java.time} or {@code java.sql}; or be one of the
 *   names the caller says are outside the checkout (a Jakarta or Mutiny type, a naming suffix).</li>
 *   <li>a type after lower-case package segments: {@code core.chain.StoreLimiter}, {@code spi.StoreRefund}, as
 *   the design page writes them from {@code dev.ratelimiter.internal} or {@code dev.ratelimiter}. A file
 *   {@code <segments as directories>/<Type>.java} must exist in the checkout, so a class moved to another
 *   package is caught. A name whose first segment is {@code java}, {@code javax}, {@code jakarta}, {@code org},
 *   {@code io} or {@code com} is outside the checkout and not checked.</li>
 * </ul>
 * Each member after the type ({@code .withPlan}, {@code .REFUND_CASES}, or Javadoc's {@code #windowName}) must
 * appear as a word in a file that declares the type. Reads files only.
 */
final class CodeNames {

    private static final Pattern DECLARATION = Pattern.compile("\\b(?:class|interface|record|enum)\\s+([A-Z]\\w*)");
    private static final Pattern TYPE = Pattern.compile(
            "@?([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)((?:\\.\\w+)*)(?:\\(\\))?");
    private static final Pattern QUALIFIED = Pattern.compile(
            "((?:[a-z][a-z0-9]*\\.)+)([A-Z]\\w*)((?:\\.\\w+)*)(?:\\(\\))?");
    private static final Set<String> OUTSIDE_ROOTS = Set.of("java", "javax", "jakarta", "org", "io", "com");
    private static final List<String> JDK_PACKAGES =
            List.of("java.lang.", "java.util.", "java.util.concurrent.", "java.time.", "java.sql.");

    private final Checkout checkout;
    private final Set<String> outside;
    /** Each type's simple name and the files that declare it. */
    private final Map<String, List<Path>> declared = new HashMap<>();
    /** Each Java file by its path from the root, '/' between names. */
    private final Map<String, Path> javaFiles = new HashMap<>();
    private final Map<Path, String> texts = new HashMap<>();

    /**
     * The names of {@code checkout}'s Java sources.
     *
     * @param outside simple names a page may cite that no file of the checkout declares (each one a type of a
     *                library or a word of the naming conventions), checked as present
     */
    CodeNames(Checkout checkout, Set<String> outside) {
        this.checkout = checkout;
        this.outside = outside;
        for (Path file : checkout.sourceFiles()) {
            if (file.getFileName().toString().endsWith(".java")) {
                javaFiles.put(checkout.relative(file), file);
                Matcher declaration = DECLARATION.matcher(text(file));
                while (declaration.find()) {
                    declared.computeIfAbsent(declaration.group(1), name -> new ArrayList<>()).add(file);
                }
            }
        }
    }

    /**
     * The Java names of one page.
     *
     * @param page a Markdown page of the checkout
     * @return how many names were read, and each one not found as {@code path:line: what}
     */
    DocsCheck.Report check(Path page) {
        int checked = 0;
        List<String> problems = new ArrayList<>();
        for (MarkdownPage.CodeSpan span : MarkdownPage.codeSpans(Checkout.read(page))) {
            // Javadoc's member form (Bucket.Limit#windowName) names a member as the dot does
            String code = span.code().strip().replace('#', '.');
            Matcher qualified = QUALIFIED.matcher(code);
            Matcher type = TYPE.matcher(code);
            String problem;
            if (qualified.matches()) {
                String packages = qualified.group(1);
                if (OUTSIDE_ROOTS.contains(packages.substring(0, packages.indexOf('.')))) {
                    continue;
                }
                problem = qualifiedProblem(packages, qualified.group(2), qualified.group(3));
            } else if (type.matches()) {
                problem = typeProblem(type.group(1), type.group(2));
            } else {
                continue;
            }
            checked++;
            if (problem != null) {
                problems.add(checkout.relative(page) + ":" + span.line() + ": `" + span.code().strip() + "` "
                        + problem);
            }
        }
        return new DocsCheck.Report(checked, problems);
    }

    private String qualifiedProblem(String packages, String type, String members) {
        String suffix = "/" + packages.replace('.', '/') + type + ".java";
        List<Path> files = javaFiles.entrySet().stream().filter(entry -> entry.getKey().endsWith(suffix))
                .map(Map.Entry::getValue).toList();
        if (files.isEmpty()) {
            List<Path> elsewhere = declared.getOrDefault(type, List.of());
            return "names no Java file *" + suffix
                    + (elsewhere.isEmpty() ? "" : " (" + type + " is declared in " + checkout.relative(elsewhere.get(0))
                    + ")");
        }
        return memberProblem(type, members, files);
    }

    private String typeProblem(String type, String members) {
        List<Path> files = declared.get(type);
        if (files == null) {
            return inJdk(type) || outside.contains(type) ? null
                    : "names a type that no Java file of the checkout declares";
        }
        return memberProblem(type, members, files);
    }

    private String memberProblem(String type, String members, List<Path> files) {
        for (String member : members.isEmpty() ? new String[0] : members.substring(1).split("\\.")) {
            Pattern word = Pattern.compile("\\b" + Pattern.quote(member) + "\\b");
            if (files.stream().noneMatch(file -> word.matcher(text(file)).find())) {
                return "names " + member + ", which no file declaring " + type + " contains";
            }
        }
        return null;
    }

    private static boolean inJdk(String type) {
        for (String jdkPackage : JDK_PACKAGES) {
            try {
                Class.forName(jdkPackage + type, false, ClassLoader.getPlatformClassLoader());
                return true;
            } catch (ClassNotFoundException notThere) {
                // the next package
            }
        }
        return false;
    }

    private String text(Path file) {
        return texts.computeIfAbsent(file, Checkout::read);
    }
}
