package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Bucket;

import java.time.InstantSource;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The statements of one counter table (docs/stores.md#the-table), read once, when the store starts, from the
 * {@code .sql} resources beside this class ({@link SqlResource}), which say what each statement decides and why it
 * is written so, with named parameters ({@link NamedStatement}) that {@link CounterParameters} binds. Counting,
 * deciding and reopening an ended window are one {@code INSERT ... ON CONFLICT (bucket, key) DO UPDATE ...
 * RETURNING}: no read before the write, no explicit transaction, no advisory lock. PostgreSQL's row lock serialises
 * concurrent attempts on a key from any number of processes, so each sees the count the previous one left, and two
 * first attempts never fail with a unique violation. The rows they return are read by {@link CounterRows}.
 *
 * <p>One row per (bucket, key) holds every window of the bucket, in the columns the migration describes. An item of
 * one window and a positive cost is one such upsert: a fixed window's ({@code consume-fixed-window.sql}), a token
 * bucket's ({@code consume-token-bucket.sql}), a sliding window's ({@code consume-sliding-window.sql}); so is a fixed
 * window of several windows ({@code consume-fixed-windows.sql}); a check (cost 0) of a fixed window or a token bucket
 * is one read ({@code check.sql}). Token buckets and sliding windows have rows of their own, keyed
 * {@link #TOKEN_KEY_PREFIX} or {@link #SLIDING_KEY_PREFIX} and the hashed key, and so do a concurrency bucket's
 * permits, keyed {@link #PERMITS_KEY_PREFIX}, whose statements are {@link PermitStatements}'.
 *
 * <p>The window's time is the database's, one instant per statement ({@code statement_timestamp()}, unlike
 * {@code clock_timestamp()}, does not move between the statement's expressions), written into the text rather than
 * bound as a NULL, since the driver sends a NULL timestamp of no declared type, which has it describe the statement
 * again at every execution (about 20 µs a call, measured beside a statement without it); tests bind an instant
 * instead ({@code :now}).
 *
 * <p>Several items in one call (the buckets of one method), the calls waiting for a connection, and the items no
 * upsert decides (a token bucket of several windows, a sliding window's check or several windows) are one statement
 * too: {@code SELECT <table>_decide_v1(...)} ({@link #decide}), the function the baseline migration puts beside the
 * table ({@link DecideFunction}), which decides each call's items in their order with the same rules and stops
 * after the call's first refusal; a refusal must leave the later items uncounted, which a single
 * {@code INSERT ... ON CONFLICT} over several rows cannot express. Every statement that locks several rows takes them
 * in (bucket, key) order, a one-item statement locks one row and the sweep skips locked rows, so no two calls wait for
 * each other in a circle. Its cost is measured in BENCHMARKS.md (docs/guide.md#several-limits-on-one-method,
 * docs/stores.md#batching).
 *
 * <p>A resource missing, or a placeholder of one without a value, throws {@link IllegalStateException} when the
 * store starts (a mistake in the library).
 */
final class CounterStatements {

    /**
     * What a token bucket's row key starts with (docs/stores.md#token-bucket-rows): a hashed key is base64url, which
     * has no {@code ':'}, so no fixed window's statement ever reads a token bucket's state as a counter, and a bucket
     * whose algorithm changes starts afresh.
     */
    static final String TOKEN_KEY_PREFIX = "tb:";

    /**
     * What a sliding window's row key starts with (docs/stores.md#sliding-window-rows), for the same reasons as
     * {@link #TOKEN_KEY_PREFIX}.
     */
    static final String SLIDING_KEY_PREFIX = "sw:";

    /**
     * What the row key of a concurrency bucket's permits starts with ({@code permits-take.sql}), for the same reasons
     * as {@link #TOKEN_KEY_PREFIX}.
     */
    static final String PERMITS_KEY_PREFIX = "cp:";

    /** The most rows one batch of the sweep deletes ({@link #sweep()}). */
    static final int SWEEP_BATCH = 10_000;

    /** The statement's instant in production: the database's, one per statement. */
    private static final String DATABASE_NOW = "statement_timestamp()";

    /** The statement's instant in tests: the one they bind. */
    private static final String BOUND_NOW = ":now::timestamptz";

    private final NamedStatement consumeOne;
    private final NamedStatement consumeSeveral;
    private final NamedStatement consumeTokens;
    private final NamedStatement consumeSliding;
    private final NamedStatement check;
    private final NamedStatement decide;
    private final NamedStatement refund;
    private final NamedStatement sweep;
    private final String reset;
    private final String probe;

    /**
     * The statements of this version of the library, calling {@link DecideFunction#CURRENT}.
     *
     * @param table      the counter table, already validated as an identifier
     * @param boundClock empty in production (the database's {@code statement_timestamp()}); tests bind instants
     */
    CounterStatements(String table, Optional<InstantSource> boundClock) {
        this(table, boundClock, DecideFunction.CURRENT);
    }

    /**
     * @param table      the counter table, already validated as an identifier
     * @param boundClock empty in production (the database's {@code statement_timestamp()}); tests bind instants
     * @param function   the version of the decide function called (another than the current one in tests of a
     *                   rolling upgrade)
     */
    CounterStatements(String table, Optional<InstantSource> boundClock, DecideFunction function) {
        Objects.requireNonNull(boundClock, "boundClock");
        Map<String, String> values = values(table, now(boundClock));
        this.consumeOne = NamedStatement.of(SqlResource.load("consume-fixed-window.sql", values));
        this.consumeSeveral = NamedStatement.of(SqlResource.load("consume-fixed-windows.sql", values));
        this.consumeTokens = NamedStatement.of(SqlResource.load("consume-token-bucket.sql", values));
        this.consumeSliding = NamedStatement.of(SqlResource.load("consume-sliding-window.sql", values));
        this.check = NamedStatement.of(SqlResource.load("check.sql", values));
        this.refund = NamedStatement.of(SqlResource.load("refund.sql", values));
        this.sweep = NamedStatement.of(SqlResource.load("sweep.sql", values));
        this.reset = SqlResource.load("reset.sql", values);
        Map<String, String> calls = Map.of("table", table, "decide", function.name(table),
                "instant", boundClock.isPresent() ? BOUND_NOW : "NULL");
        this.decide = NamedStatement.of(SqlResource.load("decide.sql", calls));
        this.probe = SqlResource.load("probe.sql", calls);
    }

    private static Map<String, String> values(String table, String now) {
        return Map.of("table", table, "now", now, "sweep_batch", String.valueOf(SWEEP_BATCH));
    }

    /**
     * What a statement's {@code ${now}} stands for: the database's instant in production, {@code :now} in tests.
     *
     * @param boundClock empty in production; tests bind instants
     */
    static String now(Optional<InstantSource> boundClock) {
        return boundClock.isPresent() ? BOUND_NOW : DATABASE_NOW;
    }

    /**
     * The one-window upsert of a fixed window in production ({@code consume-fixed-window.sql}), for the benchmark's
     * bare loop and pgbench script ({@code PostgresLayout}).
     *
     * @param table the counter table, as the store names it
     * @return the statement's text, with named parameters
     */
    static String consumeOneSql(String table) {
        return SqlResource.load("consume-fixed-window.sql", values(table, DATABASE_NOW));
    }

    /**
     * Whether one item is decided by one of {@link #forItem}'s statements; else, a token bucket of several windows
     * and a positive cost, or a sliding window's check or several windows, by the function ({@link #decide()}), as a
     * call of one item.
     */
    static boolean hasItemStatement(Bucket bucket, long cost) {
        if (bucket.isSlidingWindow()) {
            return cost > 0 && !bucket.hasSeveralWindows();
        }
        return cost == 0 || !bucket.isTokenBucket() || !bucket.hasSeveralWindows();
    }

    /**
     * The statement that decides one item for which {@link #hasItemStatement} holds: cost 0 reads the row
     * ({@link CounterRows#checked}), else the upsert of a fixed window's one window or several
     * ({@link CounterRows#counted}), of a token bucket's one window ({@link CounterRows#tokensCounted}) or of a sliding
     * window's one window ({@link CounterRows#slidingCounted}).
     *
     * @throws IllegalStateException for a sliding window's check or several windows, which have no such statement,
     *                               and for a concurrency bucket, whose permits are never counted
     *                               ({@link PermitStatements})
     */
    NamedStatement forItem(Bucket bucket, long cost) {
        if (bucket.isConcurrency()) {
            throw new IllegalStateException("bucket '" + bucket.name() + "' limits concurrency: its permits are "
                    + "taken and given back, never counted");
        }
        if (bucket.isSlidingWindow()) {
            if (!hasItemStatement(bucket, cost)) {
                throw new IllegalStateException("a sliding window's check or several windows have no one-item "
                        + "statement: the function decides them");
            }
            return consumeSliding;
        }
        if (cost == 0) {
            return check;
        }
        if (bucket.isTokenBucket()) {
            return consumeTokens;
        }
        return bucket.hasSeveralWindows() ? consumeSeveral : consumeOne;
    }

    /**
     * The row key of {@code key} in {@code bucket}: as given for a fixed window, after {@link #TOKEN_KEY_PREFIX} for
     * a token bucket, after {@link #SLIDING_KEY_PREFIX} for a sliding window, after {@link #PERMITS_KEY_PREFIX} for a
     * concurrency bucket's permits.
     */
    static String rowKey(Bucket bucket, String key) {
        return switch (bucket.algorithm()) {
            case FIXED_WINDOW -> key;
            case TOKEN_BUCKET -> TOKEN_KEY_PREFIX + key;
            case SLIDING_WINDOW -> SLIDING_KEY_PREFIX + key;
            case CONCURRENCY -> PERMITS_KEY_PREFIX + key;
        };
    }

    /**
     * The call of the function that decides several calls, each of one or more items (one call of several items
     * too); bound by {@link CounterParameters#bindDecide}.
     */
    NamedStatement decide() {
        return decide;
    }

    /** The statement that gives refunds back ({@code refund.sql}); bound by {@link CounterParameters#bindRefund}. */
    NamedStatement refund() {
        return refund;
    }

    /**
     * Deletes at most {@link #SWEEP_BATCH} rows whose windows have all ended, skipping rows a decision holds locked;
     * bound by {@link CounterParameters#bindSweep} (in tests {@code :now}; in production no parameter).
     */
    NamedStatement sweep() {
        return sweep;
    }

    /**
     * Deletes one (bucket, key)'s rows, its fixed windows', its token bucket's, its sliding window's and its
     * permits', whichever counted it; parameters 1 to 5 are the bucket's name, the key, the key with
     * {@link #TOKEN_KEY_PREFIX}, with {@link #SLIDING_KEY_PREFIX} and with {@link #PERMITS_KEY_PREFIX}.
     */
    String reset() {
        return reset;
    }

    /**
     * An {@code UPDATE} of the table that matches no row and a call of the function that decides nothing, in one
     * statement without parameters: it still needs a writable session, the table's privileges and the function
     * (see {@link PostgresStore#probe}).
     */
    String probe() {
        return probe;
    }
}
