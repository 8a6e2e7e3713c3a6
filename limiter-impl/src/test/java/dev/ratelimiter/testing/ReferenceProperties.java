package dev.ratelimiter.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rows of docs/reference.md#properties, read from the checkout the tests run in, by full property name: what the
 * page tells an operator, for the tests that hold the code's property tables to it. A row naming several properties
 * ({@code `ratelimiter.valkey.user` / `.password`}) gives each its own entry, with the row's default column split
 * alike where it is ({@code `600` / `PT1M`}).
 */
public final class ReferenceProperties {

    /** One property's row: its default column and its meaning column, as written (backticks kept). */
    public record Row(String defaultValue, String meaning) {
    }

    private static final Pattern NAME = Pattern.compile("`([^`]+)`");

    private ReferenceProperties() {
    }

    /**
     * @return every row of the properties table whose first column names a {@code ratelimiter.} property, in page
     *         order
     * @throws IllegalStateException if no docs/reference.md is found above the working directory
     */
    public static Map<String, Row> read() {
        Path page = page();
        List<String> lines;
        try {
            lines = Files.readAllLines(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Row> rows = new LinkedHashMap<>();
        boolean inSection = false;
        for (String line : lines) {
            if (line.startsWith("## ")) {
                inSection = line.equals("## Properties");
                continue;
            }
            if (!inSection || !line.startsWith("| `ratelimiter.")) {
                continue;
            }
            String[] cells = line.split(" \\| ", 3);
            String meaning = cells[2].endsWith(" |") ? cells[2].substring(0, cells[2].length() - 2) : cells[2];
            List<String> names = names(cells[0].substring(2));
            String[] defaults = cells[1].split(" / ");
            for (int i = 0; i < names.size(); i++) {
                String defaultValue = defaults.length == names.size() ? defaults[i] : cells[1];
                rows.put(names.get(i), new Row(defaultValue.strip(), meaning));
            }
        }
        return rows;
    }

    /** {@code `ratelimiter.a.user` / `.password`}: {@code ratelimiter.a.user}, {@code ratelimiter.a.password}. */
    private static List<String> names(String cell) {
        List<String> names = new ArrayList<>();
        Matcher matcher = NAME.matcher(cell);
        String first = null;
        while (matcher.find()) {
            String name = matcher.group(1);
            if (first == null) {
                first = name;
                names.add(name);
            } else if (name.startsWith(".")) {
                names.add(first.substring(0, first.lastIndexOf('.')) + name);
            }
        }
        return names;
    }

    private static Path page() {
        for (Path directory = Path.of("").toAbsolutePath(); directory != null; directory = directory.getParent()) {
            Path page = directory.resolve("docs/reference.md");
            if (Files.isRegularFile(page)) {
                return page;
            }
        }
        throw new IllegalStateException("no docs/reference.md above " + Path.of("").toAbsolutePath());
    }
}
