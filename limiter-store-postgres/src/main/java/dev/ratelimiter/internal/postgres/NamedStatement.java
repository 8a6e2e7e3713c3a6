package dev.ratelimiter.internal.postgres;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A statement written with named parameters ({@code :cost}), turned once into JDBC's positional {@code ?} and the
 * name of each position, so a statement that uses a value several times binds it by name, never by counting.
 * A cast ({@code ::bigint}) is not a parameter.
 *
 * @param sql   the statement with {@code ?} in place of each name
 * @param names the name at each position, first position first
 */
record NamedStatement(String sql, List<String> names) {

    private static final Pattern NAME = Pattern.compile("(?<!:):([a-z_]+)");

    NamedStatement {
        names = List.copyOf(names);
    }

    /** Parses {@code text}, replacing each {@code :name} (not {@code ::type}) by {@code ?}. */
    static NamedStatement of(String text) {
        Matcher matcher = NAME.matcher(text);
        StringBuilder sql = new StringBuilder();
        List<String> names = new ArrayList<>();
        while (matcher.find()) {
            names.add(matcher.group(1));
            matcher.appendReplacement(sql, "?");
        }
        matcher.appendTail(sql);
        return new NamedStatement(sql.toString(), names);
    }
}
