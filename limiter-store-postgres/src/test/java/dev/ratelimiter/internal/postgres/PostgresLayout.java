package dev.ratelimiter.internal.postgres;

import java.util.List;

/**
 * The PostgreSQL store's one-window statement as the library's jar has it: the name of each of its parameters,
 * in order, for the benchmark's bare loop and pgbench script. In the store's package because the statement is
 * package-private, and in its test-jar so that no other jar adds classes to that package; read from the classes,
 * never copied.
 */
public final class PostgresLayout {

    private PostgresLayout() {
    }

    /**
     * The parameters the store binds, position 1 first: {@code bucket}, {@code key}, {@code now} (no bound
     * instant: NULL), {@code window} (seconds), {@code cost}, {@code limit}.
     *
     * @param table the counter table, as the store names it
     * @return the names, one per {@code ?}
     */
    public static List<String> parameterNames(String table) {
        return NamedStatement.of(CounterStatements.consumeOneSql(table)).names();
    }
}
