package dev.ratelimiter.internal.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A statement's text from a {@code .sql} resource beside this class, read once when the store starts: its
 * {@code --} comments dropped and its lines joined by one space (the statement the server sees and logs is one line,
 * as it was when written in Java), then each {@code ${name}} replaced by its value (the table's name, the
 * statement's instant). Named parameters ({@code :cost}) are left for {@link NamedStatement}.
 */
final class SqlResource {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([a-z_]+)}");

    private SqlResource() {
    }

    /**
     * @param file   the resource's name, beside this class (e.g. {@code consume-fixed-window.sql})
     * @param values each placeholder's value, by name
     * @return the statement's text
     * @throws IllegalStateException for a missing resource or a placeholder {@code values} does not hold (a mistake in
     *                               the library, found at startup)
     */
    static String load(String file, Map<String, String> values) {
        Matcher matcher = PLACEHOLDER.matcher(withoutComments(read(file)));
        StringBuilder text = new StringBuilder();
        while (matcher.find()) {
            String value = values.get(matcher.group(1));
            if (value == null) {
                throw new IllegalStateException(file + ": no value for ${" + matcher.group(1) + "}");
            }
            matcher.appendReplacement(text, Matcher.quoteReplacement(value));
        }
        matcher.appendTail(text);
        return text.toString();
    }

    private static String read(String file) {
        try (InputStream in = SqlResource.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalStateException("no resource " + file + " beside " + SqlResource.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The text without its comments, each line stripped and the lines joined by one space. A {@code --} inside a
     * quoted literal is not a comment; no literal of the statements spans lines.
     */
    private static String withoutComments(String text) {
        StringJoiner lines = new StringJoiner(" ");
        for (String line : text.split("\\R")) {
            boolean quoted = false;
            int end = line.length();
            for (int i = 0; i < line.length() - 1 && end == line.length(); i++) {
                quoted ^= line.charAt(i) == '\'';
                if (!quoted && line.startsWith("--", i)) {
                    end = i;
                }
            }
            String code = line.substring(0, end).strip();
            if (!code.isEmpty()) {
                lines.add(code);
            }
        }
        return lines.toString();
    }
}
