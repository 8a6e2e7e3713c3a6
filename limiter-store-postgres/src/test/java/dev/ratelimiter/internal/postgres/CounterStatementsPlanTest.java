package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.OutagePolicy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plans PostgreSQL makes of the one-item statements (CounterStatements' {@code FENCE}): no expression of theirs is
 * copied into the plan more often than the statement names it. The planner pulls a sub-select up into the expressions
 * that read it, copying each of its columns whole into every use, and PostgreSQL builds a statement's expressions anew
 * at every execution, so a copied sub-select costs every decision (the sliding window's statement once held some 60
 * copies of its instant, at half the fixed window's rate: BENCHMARKS.md). The database's instant,
 * {@code statement_timestamp()}, stands for every expression: counted in the text and in {@code EXPLAIN VERBOSE}.
 */
class CounterStatementsPlanTest {

    private static final Pattern INSTANT = Pattern.compile("statement_timestamp\\(\\)");
    private static final Duration MINUTE = Duration.ofMinutes(1);

    private static String schema;

    @BeforeAll
    static void migrate() {
        schema = PostgresTarget.newSchema("plans");
    }

    @AfterAll
    static void drop() {
        PostgresTarget.dropSchema(schema);
    }

    static List<Object[]> items() {
        List<Limit> two = List.of(new Limit(10, MINUTE), new Limit(100, Duration.ofHours(1)));
        return List.of(
                new Object[] {"fixed window, one window", Bucket.of("plan-fixed", 10, MINUTE), 1L},
                new Object[] {"fixed window, several windows", Bucket.of("plan-fixed-two", two,
                        OutagePolicy.FALLBACK, Algorithm.FIXED_WINDOW, 0), 1L},
                new Object[] {"a check (cost 0)", Bucket.of("plan-check", 10, MINUTE), 0L},
                new Object[] {"token bucket, one window", Bucket.of("plan-tokens", List.of(new Limit(10,
                        MINUTE)), OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET, 0), 1L},
                new Object[] {"sliding window, one window", Bucket.of("plan-sliding", List.of(new Limit(10,
                        MINUTE)), OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0), 1L});
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("items")
    @DisplayName("the plan computes each expression of the statement once: its instant no more often than named")
    void noExpressionCopied(String name, Bucket bucket, long cost) throws SQLException {
        CounterStatements statements = new CounterStatements(schema + "." + PostgresChain.TABLE, Optional.empty());
        NamedStatement statement = statements.forItem(bucket, cost);
        StringBuilder plan = new StringBuilder();
        try (Connection connection = PostgresTarget.dataSource(schema).getConnection();
             PreparedStatement explain = connection.prepareStatement("EXPLAIN (VERBOSE, COSTS OFF) "
                     + statement.sql())) {
            new CounterParameters(Optional.empty(), InstantSource.system()).bind(connection, explain, statement,
                    bucket, "a-hashed-key", cost);
            try (ResultSet rows = explain.executeQuery()) {
                while (rows.next()) {
                    plan.append(rows.getString(1)).append('\n');
                }
            }
        }
        long named = count(statement.sql());
        assertThat(named).as("the statement reads the database's instant").isPositive();
        assertThat(count(plan.toString())).as("instants in the plan of %s:%n%s", name, plan).isLessThanOrEqualTo(named);
    }

    private static long count(String text) {
        Matcher matcher = INSTANT.matcher(text);
        long count = 0;
        while (matcher.find()) {
            count++;
        }
        return count;
    }
}
