package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.spi.StoreAnswers;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;

import static dev.ratelimiter.spi.TokenBucketTiming.aheadMicros;
import static dev.ratelimiter.spi.TokenBucketTiming.capacity;
import static dev.ratelimiter.spi.TokenBucketTiming.tokenIntervalMicros;

/**
 * The rows {@link CounterStatements}' statements return, decoded into the SPI's answer
 * (docs/architecture.md#the-store-spi): per item its flag (1 allowed and counted, 0 refused), then per window in
 * {@link Bucket#limits()} order the count after the call and the milliseconds until the window ends (its whole
 * length when none is open); for a token bucket, per window the tokens not available and the milliseconds until it
 * is full, from the time owed until full (docs/stores.md#token-bucket-rows). A one-item statement's row is written
 * into a {@code long[]} the caller made, from an offset, so a decision allocates one answer; the migration's
 * function returns that layout already, per call, in one {@code bigint[]} ({@link #functionAnswers}), with a
 * sliding window's three numbers per window (docs/stores.md#sliding-window-rows).
 *
 * <p>A column the driver cannot read throws its {@link SQLException}, which the store classifies
 * ({@link PostgresFailures}); nothing here decides by this JVM's clock: a window's time left is from the instant
 * its row returns ({@code now}: the database's, or the one a test bound).
 */
final class CounterRows {

    private static final VarHandle BIG_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.BIG_ENDIAN);

    private CounterRows() {
    }

    /**
     * The answers of the migration's function, which decides several calls: call after call, the count of
     * numbers that follow for the call, then those numbers (one call's answer in the layout above, each item's
     * {@link dev.ratelimiter.spi.StoreItem#answerLength} numbers).
     *
     * @param row   the function's one row, on it; column 1 is its {@code bigint[]}
     * @param calls how many calls it decided
     * @return each call's answer, in order
     * @throws SQLException if the array does not hold {@code calls} answers (a function of another version)
     */
    static long[][] functionAnswers(ResultSet row, int calls) throws SQLException {
        Object[] numbers = (Object[]) row.getArray(1).getArray();
        long[][] answers = new long[calls][];
        int at = 0;
        for (int call = 0; call < calls; call++) {
            if (at >= numbers.length) {
                throw new SQLException("the function answered " + call + " calls of " + calls);
            }
            long[] answer = new long[(int) ((Number) numbers[at++]).longValue()];
            for (int i = 0; i < answer.length; i++) {
                answer[i] = ((Number) numbers[at++]).longValue();
            }
            answers[call] = answer;
        }
        return answers;
    }

    /**
     * The numbers of a counting statement ({@code count, ends_at, denied, now[, window_counts, window_ends]}).
     *
     * @return whether it was allowed
     */
    static boolean counted(Bucket bucket, ResultSet row, long[] answer, int offset) throws SQLException {
        boolean allowed = !row.getBoolean(3);
        if (!bucket.hasSeveralWindows()) {
            // A statement that waited for the row lock behind the one that opened the window has an earlier
            // instant: its time left can exceed the window by microseconds (the verdict clamps it).
            StoreAnswers.writeAllowed(answer, offset, allowed);
            StoreAnswers.writeFixedWindow(answer, offset, 0, row.getLong(1), millisLeft(row, 2, 4));
            return allowed;
        }
        Instant now = row.getObject(4, OffsetDateTime.class).toInstant();
        several(bucket, allowed, now, longs(row.getArray(5)), instants(row.getArray(6)), answer, offset,
                bucket.limits().get(0).window().toMillis());
        return allowed;
    }

    /**
     * The numbers of a token bucket's one-window upsert ({@code ends_at, denied, now, count}): whether it was
     * refused, and the window's TAT after the call, {@code count} microseconds before {@code ends_at}
     * (docs/stores.md#token-bucket-rows), read here rather than worked out by the statement, which would build that
     * arithmetic again at every execution.
     *
     * @return whether it was allowed
     */
    static boolean tokensCounted(Bucket bucket, ResultSet row, long[] answer, int offset) throws SQLException {
        boolean allowed = !row.getBoolean(2);
        StoreAnswers.writeAllowed(answer, offset, allowed);
        tokenWindow(bucket, 0, Math.max(microsLeft(row, 1, 3) - row.getLong(4), 0), answer, offset);
        return allowed;
    }

    /**
     * The numbers of a sliding window's one-window upsert ({@code count, previous, denied}, and the milliseconds
     * from the statement's instant to {@code ends_at}): the current count, the previous count and the milliseconds
     * until the current window ends (the row's {@code ends_at} is one length later), at most its length; no state
     * (both counts 0) answers its whole length.
     *
     * @return whether it was allowed
     */
    static boolean slidingCounted(Bucket bucket, ResultSet row, long[] answer, int offset) throws SQLException {
        boolean allowed = !row.getBoolean(3);
        long windowMillis = bucket.window().toMillis();
        long current = row.getLong(1);
        long previous = row.getLong(2);
        long end = windowMillis;
        if (current > 0 || previous > 0) {
            end = Math.max(1, Math.min(row.getLong(4) - windowMillis, windowMillis));
        }
        StoreAnswers.writeAllowed(answer, offset, allowed);
        StoreAnswers.writeSlidingWindow(answer, offset, 0, current, previous, end);
        return allowed;
    }

    /**
     * The numbers of cost 0, from the row as it is ({@code now, count, ends_at, window_seconds, window_counts,
     * window_ends, token_intervals, token_capacities}; all null without a row): allowed iff a cost-1 call would be.
     * {@code firstMillis} is how long the first window lasts if it opens now ({@link CounterParameters#windowMillis}:
     * a calendar window's time left until its period ends).
     *
     * @return whether it was allowed
     */
    static boolean checked(Bucket bucket, ResultSet row, long[] answer, int offset, long firstMillis)
            throws SQLException {
        if (bucket.isTokenBucket()) {
            return tokensChecked(bucket, row, answer, offset);
        }
        Instant now = row.getObject(1, OffsetDateTime.class).toInstant();
        long[] seconds = longs(row.getArray(4));
        int size = bucket.limits().size();
        long[] counts = new long[size];
        Instant[] ends = new Instant[size];
        if (!bucket.hasSeveralWindows()) {
            OffsetDateTime endsAt = row.getObject(3, OffsetDateTime.class);
            if (endsAt != null && seconds == null) {
                counts[0] = row.getLong(2);
                // At most the window's length from now, as the upsert brings a row of a longer window
                // (docs/stores.md#counters-across-a-change-of-settings); a check writes nothing.
                Instant latest = now.plusMillis(firstMillis);
                ends[0] = endsAt.toInstant().isAfter(latest) ? latest : endsAt.toInstant();
            }
        } else if (seconds != null) {
            // Each window by its length, as the upsert reads it: a length the row does not hold is not open.
            long[] storedCounts = longs(row.getArray(5));
            Instant[] storedEnds = instants(row.getArray(6));
            for (int i = 0; i < size; i++) {
                long length = bucket.limits().get(i).windowSeconds();
                for (int j = 0; j < seconds.length; j++) {
                    if (seconds[j] == length) {
                        counts[i] = storedCounts[j];
                        ends[i] = storedEnds[j];
                    }
                }
            }
        }
        boolean allowed = true;
        for (int i = 0; i < size; i++) {
            boolean open = ends[i] != null && ends[i].isAfter(now);
            allowed &= (open ? counts[i] : 0) + 1 <= bucket.limits().get(i).limit();
        }
        several(bucket, allowed, now, counts, ends, answer, offset, firstMillis);
        return allowed;
    }

    /**
     * A token bucket's check: each window's time owed until full, from its TAT ({@code ends_at} minus {@code count}
     * microseconds for one window, {@code window_ends} for several), whatever capacities and intervals the row was
     * kept under (a plan's), at most a full refill of the bucket's; a row of another count of windows, or none, is
     * full. Allowed iff every window has a token: the rule of the migration's function with a cost of 1.
     */
    private static boolean tokensChecked(Bucket bucket, ResultSet row, long[] answer, int offset)
            throws SQLException {
        Instant now = row.getObject(1, OffsetDateTime.class).toInstant();
        int size = bucket.limits().size();
        long[] owed = new long[size];
        long[] intervals = longs(row.getArray(7));
        if (intervals != null && intervals.length == size) {
            Instant[] tats = bucket.hasSeveralWindows() ? instants(row.getArray(6))
                    : new Instant[] {row.getObject(3, OffsetDateTime.class).toInstant().minus(row.getLong(2),
                            ChronoUnit.MICROS)};
            for (int i = 0; i < size; i++) {
                owed[i] = Math.max(ChronoUnit.MICROS.between(now, tats[i]), 0);
            }
        }
        boolean allowed = true;
        for (int i = 0; i < size; i++) {
            long interval = tokenIntervalMicros(bucket, i);
            allowed &= owed[i] + interval <= capacity(bucket, i) * interval;
        }
        StoreAnswers.writeAllowed(answer, offset, allowed);
        for (int i = 0; i < size; i++) {
            tokenWindow(bucket, i, owed[i], answer, offset);
        }
        return allowed;
    }

    /**
     * Window {@code i}'s two numbers of a token bucket, {@code owed} microseconds from full, read as at most a full
     * refill (a row kept under a plan of a larger capacity or a slower rate can owe more): the tokens not available
     * (capacity - floor((capacity x interval - owed) / interval)) and the milliseconds until full, rounded up.
     */
    private static void tokenWindow(Bucket bucket, int i, long owedMicros, long[] answer, int offset) {
        long interval = tokenIntervalMicros(bucket, i);
        long capacity = capacity(bucket, i);
        long owed = Math.min(owedMicros, capacity * interval + aheadMicros(bucket)); // a reservation's beyond empty
        StoreAnswers.writeTokenBucket(answer, offset, i, capacity - Math.floorDiv(capacity * interval - owed, interval),
                Math.floorDiv(owed + 999, 1_000));
    }

    /**
     * Each window's numbers, an ended window (or one never opened: a null end) with no count and its whole
     * length.
     */
    private static void several(Bucket bucket, boolean allowed, Instant now, long[] counts, Instant[] ends,
                                long[] answer, int offset, long firstMillis) {
        StoreAnswers.writeAllowed(answer, offset, allowed);
        for (int i = 0; i < bucket.limits().size(); i++) {
            Limit limit = bucket.limits().get(i);
            boolean open = ends[i] != null && ends[i].isAfter(now);
            StoreAnswers.writeFixedWindow(answer, offset, i, open ? counts[i] : 0,
                    open ? Duration.between(now, ends[i]).toMillis() : i == 0 ? firstMillis : limit.window().toMillis());
        }
    }

    private static long[] longs(java.sql.Array array) throws SQLException {
        if (array == null) {
            return null;
        }
        Object[] values = (Object[]) array.getArray();
        long[] longs = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            longs[i] = ((Number) values[i]).longValue();
        }
        return longs;
    }

    private static Instant[] instants(java.sql.Array array) throws SQLException {
        Object[] values = (Object[]) array.getArray();
        Instant[] instants = new Instant[values.length];
        for (int i = 0; i < values.length; i++) {
            instants[i] = values[i] instanceof java.sql.Timestamp timestamp ? timestamp.toInstant()
                    : ((OffsetDateTime) values[i]).toInstant();
        }
        return instants;
    }

    /**
     * Column {@code endsAt} minus column {@code now}, in microseconds: as {@link #millisLeft}, from the binary
     * values when the driver has them, else parsed ({@code OffsetDateTime} keeps microseconds).
     */
    private static long microsLeft(ResultSet row, int endsAt, int now) throws SQLException {
        byte[] end = row.getBytes(endsAt);
        byte[] start = row.getBytes(now);
        if (end != null && start != null && end.length == Long.BYTES && start.length == Long.BYTES) {
            return (long) BIG_ENDIAN_LONG.get(end, 0) - (long) BIG_ENDIAN_LONG.get(start, 0);
        }
        return ChronoUnit.MICROS.between(row.getObject(now, OffsetDateTime.class),
                row.getObject(endsAt, OffsetDateTime.class));
    }

    /**
     * The returned {@code ends_at} (column {@code endsAt}) minus the statement's instant (column {@code now}), in
     * milliseconds. PostgreSQL sends a {@code timestamptz} in binary as 8 bytes, big-endian microseconds since
     * 2000-01-01 (integer datetimes, the only build since PostgreSQL 10), and pgjdbc hands a binary column's bytes
     * out as they came once it has prepared the statement on the server (from the statement's fifth use on a
     * connection): their difference needs no calendar, where {@code getObject(OffsetDateTime)} builds a
     * {@code GregorianCalendar} per result. In text (the first uses, or {@code prepareThreshold=0} behind
     * PgBouncer) a value is never 8 bytes long, and both instants are parsed.
     */
    private static long millisLeft(ResultSet row, int endsAt, int now) throws SQLException {
        byte[] end = row.getBytes(endsAt);
        byte[] start = row.getBytes(now);
        if (end != null && start != null && end.length == Long.BYTES && start.length == Long.BYTES) {
            return ((long) BIG_ENDIAN_LONG.get(end, 0) - (long) BIG_ENDIAN_LONG.get(start, 0)) / 1_000;
        }
        return Duration.between(row.getObject(now, OffsetDateTime.class).toInstant(),
                row.getObject(endsAt, OffsetDateTime.class).toInstant()).toMillis();
    }
}
