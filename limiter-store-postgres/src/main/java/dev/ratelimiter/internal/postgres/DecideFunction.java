package dev.ratelimiter.internal.postgres;

/**
 * The version of the decide function a store calls, and the migration that adds it beside the table
 * (docs/stores.md#upgrades). A changed function is a new version added by a new migration beside the previous one,
 * never an edit of a released one, so replicas of the previous version keep calling theirs during a rolling upgrade.
 *
 * @param version   the number after {@code _decide_v} in the function's name, from 1
 * @param migration the file of {@code migrations/postgres} (and of the jar's {@code db/ratelimiter/postgres}) that
 *                  adds it, which the startup check names when the function is missing
 */
record DecideFunction(int version, String migration) {

    /** The function this version of the library calls: {@code <table>_decide_v1}, of the baseline migration. */
    static final DecideFunction CURRENT = new DecideFunction(1, "V1__rate_limit_counters.sql");

    /** The argument types {@link CounterStatements#bindDecide} binds, in {@code to_regprocedure}'s spelling. */
    private static final String TYPES = "timestamptz, varchar[], bigint[]";

    DecideFunction {
        if (version < 1) {
            throw new IllegalArgumentException("version must be at least 1: " + version);
        }
    }

    /**
     * The function's name beside {@code table}: after the table's, and in its schema when the table names one, else
     * found through the search_path as the table is.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return e.g. {@code rate_limit_counters_decide_v1}
     */
    String name(String table) {
        return table + "_decide_v" + version;
    }

    /**
     * The function with its argument types, as {@code to_regprocedure} reads it: what the startup check looks for.
     *
     * @param table the counter table, optionally {@code schema.table}
     * @return e.g. {@code rate_limit_counters_decide_v1(timestamptz, varchar[], bigint[])}
     */
    String signature(String table) {
        return name(table) + "(" + TYPES + ")";
    }
}
