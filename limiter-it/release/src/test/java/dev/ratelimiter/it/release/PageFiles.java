package dev.ratelimiter.it.release;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files a documentation page shows for a new application, each a fenced code block right after a line
 * {@code <!-- file: <application>/<path> -->} (the walkthroughs of {@code docs/servers.md#a-new-quarkus-application}
 * and {@code docs/servers.md#a-new-open-liberty-application}), so the test builds exactly what a reader copies;
 * and the additions a later step makes to them, each a block right after {@code <!-- add to: <application>/<path> -->}
 * ({@code docs/servers.md#counting-in-valkey-or-redis}).
 */
final class PageFiles {

    private static final Pattern BLOCK = Pattern.compile(
            "<!-- file: ([a-z-]+)/(\\S+) -->\\s*\\n\\s*```[a-z]*\\n(.*?)\\n\\s*```", Pattern.DOTALL);
    private static final Pattern ADDITION = Pattern.compile(
            "<!-- add to: ([a-z-]+)/(\\S+) -->\\s*\\n\\s*```[a-z]*\\n(.*?)\\n\\s*```", Pattern.DOTALL);

    private PageFiles() {
    }

    /**
     * The files of {@code application} on {@code page}, by path inside the application (such as
     * {@code src/main/java/com/example/LoginService.java}), in page order; empty if the page shows none.
     *
     * @throws UncheckedIOException if the page cannot be read
     */
    static Map<String, String> of(Path page, String application) {
        return blocks(BLOCK, page, application);
    }

    /**
     * The additions to the files of {@code application} on {@code page}, by path inside the application, in page
     * order; empty if the page shows none.
     *
     * @throws UncheckedIOException if the page cannot be read
     */
    static Map<String, String> additions(Path page, String application) {
        return blocks(ADDITION, page, application);
    }

    /**
     * Makes {@code additions} to the files under {@code root}, as the page tells the reader to: a pom's addition
     * goes into its project's {@code <dependencies>} (before the last {@code </dependencies>}, the dependency
     * management's coming first), any other file's is appended to it, or is the file where there was none (such as
     * {@code docs/servers.md#counting-in-postgresql-through-a-wildfly-datasource}'s script).
     *
     * @throws IllegalStateException if a pom has no {@code </dependencies>}
     */
    static void add(Path root, Map<String, String> additions) {
        try {
            for (Map.Entry<String, String> addition : additions.entrySet()) {
                Path path = root.resolve(addition.getKey());
                String text = Files.exists(path) ? Files.readString(path) : "";
                if (path.getFileName().toString().equals("pom.xml")) {
                    int end = text.lastIndexOf("  </dependencies>");
                    if (end < 0) {
                        throw new IllegalStateException(path + " has no </dependencies> to add to");
                    }
                    text = text.substring(0, end) + addition.getValue().indent(4) + text.substring(end);
                } else {
                    text = text + addition.getValue() + "\n";
                }
                Files.writeString(path, text);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, String> blocks(Pattern pattern, Path page, String application) {
        try {
            Matcher matcher = pattern.matcher(Files.readString(page));
            Map<String, String> files = new LinkedHashMap<>();
            while (matcher.find()) {
                if (matcher.group(1).equals(application)) {
                    files.put(matcher.group(2), unindent(matcher.group(3)));
                }
            }
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes {@code files} (by path inside the application) under {@code root}, each ending with a newline. */
    static void write(Path root, Map<String, String> files) {
        try {
            for (Map.Entry<String, String> file : files.entrySet()) {
                Path path = root.resolve(file.getKey());
                Files.createDirectories(path.getParent());
                Files.writeString(path, file.getValue() + "\n");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A block inside a list item is indented on the page; the file is not. */
    private static String unindent(String block) {
        List<String> lines = block.lines().toList();
        int indent = lines.stream().filter(line -> !line.isBlank())
                .mapToInt(line -> line.length() - line.stripLeading().length()).min().orElse(0);
        StringBuilder text = new StringBuilder();
        for (String line : lines) {
            text.append(line.length() >= indent ? line.substring(indent) : line.strip()).append('\n');
        }
        return text.toString().stripTrailing();
    }
}
