package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.spi.CalendarPeriods;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreRefund;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import static dev.ratelimiter.spi.TokenBucketTiming.aheadMicros;
import static dev.ratelimiter.spi.TokenBucketTiming.capacity;
import static dev.ratelimiter.spi.TokenBucketTiming.tokenIntervalMicros;

/**
 * How a call binds its values to {@link CounterStatements}' statements, each parameter by its name
 * ({@link NamedStatement#names()}), so a statement that uses a value several times binds it by name, never by
 * counting. Binding throws only the driver's {@link SQLException}, which the store classifies
 * ({@link PostgresFailures}), and {@link IllegalStateException} for a parameter name no case binds (a mistake in a
 * statement's resource).
 */
final class CounterParameters {

    /** The algorithm numbers of the function (and of {@code refund.sql}): how each item in the numbers is decided. */
    private static final long FIXED_WINDOW = 0;
    private static final long TOKEN_BUCKET = 1;
    private static final long SLIDING_WINDOW = 2;

    /**
     * How far past a token bucket's TAT its row's end is moved when the TAT passes it, at most
     * ({@code consume-token-bucket.sql}): a minute, or a full refill if that is shorter. The migration's function
     * works out the same bound for a batch ({@code token_slack}): keep the two in step.
     */
    private static final long TOKEN_SLACK_MICROS = 60_000_000L;

    private final Optional<InstantSource> boundClock;
    private final InstantSource calendarClock;
    private final CalendarPeriods periods = new CalendarPeriods();

    /**
     * @param boundClock    empty in production (the statements read the database's instant); tests bind instants
     * @param calendarClock the library's clock (in tests, the bound one), which a calendar window's boundary is
     *                      worked out from: the statements get the time left until it, never a calendar
     */
    CounterParameters(Optional<InstantSource> boundClock, InstantSource calendarClock) {
        this.boundClock = Objects.requireNonNull(boundClock, "boundClock");
        this.calendarClock = Objects.requireNonNull(calendarClock, "calendarClock");
    }

    /**
     * How long {@code bucket}'s first window lasts if it opens now, in milliseconds: its length, or a calendar
     * window's time left until its period ends ({@link CalendarPeriods}).
     */
    long windowMillis(Bucket bucket) {
        // The clock is read for a calendar window only: a window of fixed length is its length, at every call.
        return bucket.hasCalendarWindow() ? periods.windowMillis(bucket, calendarClock.millis())
                : bucket.window().toMillis();
    }

    /** Binds the sweep's parameters: in tests its instant, the bound one; in production it has none. */
    void bindSweep(PreparedStatement statement, NamedStatement sweep) throws SQLException {
        Optional<OffsetDateTime> now = boundNow();
        List<String> names = sweep.names();
        for (int i = 0; i < names.size(); i++) {
            if (!names.get(i).equals("now")) {
                throw new IllegalStateException("unbound parameter :" + names.get(i));
            }
            setInstant(statement, i + 1, now);
        }
    }

    /** Binds {@code :now} at {@code index}: in tests the bound instant; in production no statement has it. */
    void bindNow(PreparedStatement statement, int index) throws SQLException {
        setInstant(statement, index, boundNow());
    }

    private Optional<OffsetDateTime> boundNow() {
        return boundClock.map(clock -> OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC));
    }

    private static void setInstant(PreparedStatement statement, int index, Optional<OffsetDateTime> instant)
            throws SQLException {
        if (instant.isPresent()) {
            statement.setObject(index, instant.get());
        } else {
            statement.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        }
    }

    /**
     * Binds one item's values to {@code sql}, one of {@link CounterStatements#forItem}'s statements, by name:
     * {@code :key} the row key ({@link CounterStatements#rowKey}), {@code :window_ms} a fixed window's length in
     * milliseconds (a calendar window's time left until its period ends), {@code :window} and {@code :seconds} in
     * seconds,
     * {@code :cost} and {@code :limit} in units of cost, a token bucket's {@code :interval} (microseconds) and
     * {@code :capacity} (tokens) of its one window and, worked out here so the statement has less arithmetic to
     * build at every execution, in microseconds (as doubles, exact): {@code :token_step} the cost's refill
     * ({@code cost * interval}, 0 when the cost exceeds the capacity), {@code :token_room} what may be owed for the
     * cost to fit ({@code (capacity - cost) * interval}, 0 when it exceeds the capacity), {@code :token_full} a full
     * refill ({@code capacity * interval}), the most a row may owe (both raised by a reserving bucket's
     * {@link Bucket#maxWait()}: docs/guide.md#waiting-instead-of-refusing) and {@code :token_slack} how far past the TAT a moved end goes (a full
     * refill, at most a minute); {@code :now} the bound instant (tests only; in production the statement reads the
     * database's).
     */
    void bind(Connection connection, PreparedStatement statement, NamedStatement sql, Bucket bucket, String key,
              long cost) throws SQLException {
        Optional<OffsetDateTime> now = boundNow();
        List<String> names = sql.names();
        for (int i = 0; i < names.size(); i++) {
            int index = i + 1;
            switch (names.get(i)) {
                case "bucket" -> statement.setString(index, bucket.name());
                case "key" -> statement.setString(index, CounterStatements.rowKey(bucket, key));
                case "now" -> setInstant(statement, index, now);
                case "cost" -> statement.setLong(index, cost);
                case "limit" -> statement.setLong(index, bucket.limit());
                case "interval" -> statement.setLong(index, tokenIntervalMicros(bucket, 0));
                case "capacity" -> statement.setLong(index, capacity(bucket, 0));
                // Doubles: what the statement multiplies an interval by, so it builds no cast from bigint; each is
                // a whole number of microseconds within Bucket.MAX_WINDOW, far below 2^53, so exact. The
                // migration's function works out the same four for a batch: keep the two in step.
                case "token_step" -> statement.setDouble(index, cost <= capacity(bucket, 0)
                        ? Math.multiplyExact(cost, tokenIntervalMicros(bucket, 0)) : 0);
                // A reserving bucket may owe its max-wait beyond empty: room and the refusal's bound grow by it
                case "token_room" -> statement.setDouble(index, cost <= capacity(bucket, 0)
                        ? Math.multiplyExact(capacity(bucket, 0) - cost, tokenIntervalMicros(bucket, 0))
                        + aheadMicros(bucket) : 0);
                case "token_full" -> statement.setDouble(index, fullRefill(bucket) + aheadMicros(bucket));
                case "token_slack" -> statement.setDouble(index, Math.min(fullRefill(bucket), TOKEN_SLACK_MICROS));
                case "window" -> statement.setLong(index, bucket.windowSeconds());
                case "window_ms" -> statement.setLong(index, windowMillis(bucket));
                case "seconds" -> statement.setArray(index, connection.createArrayOf("bigint",
                        bucket.limits().stream().map(Limit::windowSeconds).toArray()));
                case "limits" -> statement.setArray(index, connection.createArrayOf("bigint",
                        bucket.limits().stream().map(Limit::limit).toArray()));
                default -> throw new IllegalStateException("unbound parameter :" + names.get(i));
            }
        }
    }

    /** A token bucket's first window's full refill in microseconds: within {@link Bucket#MAX_WINDOW}, checked. */
    private static long fullRefill(Bucket bucket) {
        return Math.multiplyExact(capacity(bucket, 0), tokenIntervalMicros(bucket, 0));
    }

    /**
     * The parameters of {@link CounterStatements#decide()}, in the layout the migration describes: {@code :names} each
     * item's bucket name then its row key ({@link CounterStatements#rowKey}), items one after another; {@code :numbers}
     * the count of calls, each call's count of items, then per item its algorithm (0 fixed window, 1 token bucket, 2
     * sliding window; a reserving token bucket adds 4 × {@link dev.ratelimiter.spi.TokenBucketTiming#aheadMicros}),
     * its cost (units of cost), its count of windows and per window two numbers: a fixed or sliding
     * window's length in seconds and limit, a token bucket's interval in microseconds and capacity; {@code :now} the
     * bound instant (tests only; in production the statement passes NULL, the database's). The answer's layout differs
     * by algorithm ({@link StoreItem#answerLength}); the numbers sent do not.
     */
    void bindDecide(Connection connection, PreparedStatement statement, NamedStatement decide,
                    List<List<StoreItem>> calls) throws SQLException {
        int items = 0;
        int size = 1 + calls.size();
        for (List<StoreItem> call : calls) {
            items += call.size();
            for (StoreItem item : call) {
                size += 3 + 2 * item.bucket().limits().size();
            }
        }
        String[] names = new String[2 * items];
        Long[] numbers = new Long[size];
        numbers[0] = (long) calls.size();
        int name = 0;
        int number = 1 + calls.size();
        for (int j = 0; j < calls.size(); j++) {
            List<StoreItem> call = calls.get(j);
            numbers[1 + j] = (long) call.size();
            for (StoreItem item : call) {
                Bucket bucket = item.bucket();
                names[name++] = bucket.name();
                names[name++] = CounterStatements.rowKey(bucket, item.key());
                List<Limit> limits = bucket.limits();
                numbers[number++] = algorithmNumber(bucket) + 4 * aheadMicros(bucket); // the migration's layout
                numbers[number++] = item.cost();
                numbers[number++] = (long) limits.size();
                for (int i = 0; i < limits.size(); i++) {
                    boolean tokens = bucket.isTokenBucket();
                    numbers[number++] = tokens ? tokenIntervalMicros(bucket, i)
                            : limits.get(i).isCalendar() ? -windowMillis(bucket) : limits.get(i).windowSeconds();
                    numbers[number++] = tokens ? capacity(bucket, i) : limits.get(i).limit();
                }
            }
        }
        Optional<OffsetDateTime> now = boundNow();
        List<String> parameters = decide.names();
        for (int i = 0; i < parameters.size(); i++) {
            int index = i + 1;
            switch (parameters.get(i)) {
                case "now" -> setInstant(statement, index, now);
                case "names" -> statement.setArray(index, connection.createArrayOf("varchar", names));
                case "numbers" -> statement.setArray(index, connection.createArrayOf("bigint", numbers));
                default -> throw new IllegalStateException("unbound parameter :" + parameters.get(i));
            }
        }
    }

    /**
     * Binds {@link CounterStatements#refund()}'s parameters: per refund, {@code :buckets} its bucket's name,
     * {@code :keys} its row key ({@link CounterStatements#rowKey}), {@code :algorithms} its algorithm's number (as the
     * function numbers them), {@code :costs} its cost, {@code :firsts} where its windows start in the arrays that
     * follow (from 1) and {@code :sizes} how many it has; per window, refund after refund, {@code :lengths} a fixed or
     * sliding window's length in seconds or a token bucket's interval in microseconds, {@code :capacities} a token
     * bucket's capacity (0 for a window), {@code :ends} the refund's milliseconds until the window ends
     * ({@link StoreRefund#endsInMillis()}); and {@code :now} the bound instant (tests only).
     */
    void bindRefund(Connection connection, PreparedStatement statement, NamedStatement sql,
                    List<StoreRefund> refunds) throws SQLException {
        int count = refunds.size();
        String[] buckets = new String[count];
        String[] keys = new String[count];
        Long[] algorithms = new Long[count];
        Long[] costs = new Long[count];
        Integer[] firsts = new Integer[count];
        Integer[] sizes = new Integer[count];
        int windows = 0;
        for (StoreRefund refund : refunds) {
            windows += refund.bucket().limits().size();
        }
        Long[] lengths = new Long[windows];
        Long[] capacities = new Long[windows];
        Long[] ends = new Long[windows];
        int window = 0;
        for (int i = 0; i < count; i++) {
            StoreRefund refund = refunds.get(i);
            Bucket bucket = refund.bucket();
            List<Limit> limits = bucket.limits();
            buckets[i] = bucket.name();
            keys[i] = CounterStatements.rowKey(bucket, refund.key());
            algorithms[i] = algorithmNumber(bucket) + 4 * aheadMicros(bucket); // refund.sql: a debit up to max-wait beyond empty
            costs[i] = refund.cost();
            firsts[i] = window + 1;
            sizes[i] = limits.size();
            for (int w = 0; w < limits.size(); w++) {
                boolean tokens = bucket.isTokenBucket();
                lengths[window] = tokens ? tokenIntervalMicros(bucket, w) : limits.get(w).windowSeconds();
                capacities[window] = tokens ? capacity(bucket, w) : 0L;
                ends[window] = refund.endsInMillis()[w];
                window++;
            }
        }
        Optional<OffsetDateTime> now = boundNow();
        List<String> parameters = sql.names();
        for (int i = 0; i < parameters.size(); i++) {
            int index = i + 1;
            switch (parameters.get(i)) {
                case "now" -> setInstant(statement, index, now);
                case "buckets" -> statement.setArray(index, connection.createArrayOf("varchar", buckets));
                case "keys" -> statement.setArray(index, connection.createArrayOf("varchar", keys));
                case "algorithms" -> statement.setArray(index, connection.createArrayOf("bigint", algorithms));
                case "costs" -> statement.setArray(index, connection.createArrayOf("bigint", costs));
                case "firsts" -> statement.setArray(index, connection.createArrayOf("integer", firsts));
                case "sizes" -> statement.setArray(index, connection.createArrayOf("integer", sizes));
                case "lengths" -> statement.setArray(index, connection.createArrayOf("bigint", lengths));
                case "capacities" -> statement.setArray(index, connection.createArrayOf("bigint", capacities));
                case "ends" -> statement.setArray(index, connection.createArrayOf("bigint", ends));
                default -> throw new IllegalStateException("unbound parameter :" + parameters.get(i));
            }
        }
    }

    /** The number of {@code bucket}'s algorithm in the function. */
    private static long algorithmNumber(Bucket bucket) {
        return switch (bucket.algorithm()) {
            case FIXED_WINDOW -> FIXED_WINDOW;
            case TOKEN_BUCKET -> TOKEN_BUCKET;
            case SLIDING_WINDOW -> SLIDING_WINDOW;
            // Never counted: a concurrency bucket's permits have statements of their own (PermitStatements).
            case CONCURRENCY -> throw new IllegalStateException("bucket '" + bucket.name() + "' limits concurrency: "
                    + "it has permits, not counters");
        };
    }
}
