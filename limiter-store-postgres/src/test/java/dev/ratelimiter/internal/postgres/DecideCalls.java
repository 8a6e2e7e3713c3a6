package dev.ratelimiter.internal.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;

/**
 * Calls one of the migrations' decide functions by name, as an earlier or this version of the library binds it
 * (CounterStatements#bindDecide's layout), for tests that compare versions or play an earlier one.
 */
final class DecideCalls {

    private DecideCalls() {
    }

    /**
     * @param function e.g. {@code rate_limit_counters_decide_v6}, found by the connection's search path
     * @param instant  the instant the function decides at
     * @param names    each item's bucket name then row key
     * @param numbers  the calls' numbers
     * @return the function's answer
     */
    static long[] decide(Connection connection, String function, Instant instant, List<String> names,
                         List<Long> numbers) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(
                "SELECT " + function + "(?, ?::varchar[], ?::bigint[])")) {
            statement.setObject(1, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
            statement.setArray(2, connection.createArrayOf("varchar", names.toArray()));
            statement.setArray(3, connection.createArrayOf("bigint", numbers.toArray()));
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                Object[] answer = (Object[]) row.getArray(1).getArray();
                long[] values = new long[answer.length];
                for (int i = 0; i < answer.length; i++) {
                    values[i] = ((Number) answer[i]).longValue();
                }
                return values;
            }
        }
    }
}
