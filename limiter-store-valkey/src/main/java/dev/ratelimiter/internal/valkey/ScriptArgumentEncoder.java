package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.spi.CalendarPeriods;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.StoreRefund;
import dev.ratelimiter.spi.TokenBucketTiming;

import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;


import static dev.ratelimiter.spi.TokenBucketTiming.capacity;
import static dev.ratelimiter.spi.TokenBucketTiming.tokenIntervalMicros;

/**
 * The scripts' keys and arguments as the bytes Jedis sends, so a decision encodes only its key (and a cost other
 * than 1): per bucket, the key's start and each window's key end ({@link KeyLayout}), the count of windows, which
 * marks the algorithm ({@link #windowCount}), and each window's numbers (a fixed or sliding window's limit and length
 * in milliseconds, a token bucket's capacity and token interval in microseconds) are encoded once and kept; but a
 * calendar window's length, the time left until its period ends ({@link CalendarPeriods}), is encoded per call.
 *
 * <p>{@code decide.lua}'s parameters: each item's window keys, item after item, then per item its cost, its count
 * of windows and each window's two numbers. {@code refund.lua}'s: the same keys, then per refund its cost, the same
 * count of windows and per window a fixed or sliding window's length in milliseconds and the milliseconds until the
 * window the call was counted in ends, or a token bucket's capacity and token interval, as text (refunds are not on
 * the hot path). {@code permits.lua}'s: one permits key per permit ({@link KeyLayout#permitsKey}), then the
 * operation and its arguments ({@link #takeParameters}, {@link #giveBackParameters}, {@link #renewParameters}), ids
 * as decimal text. Thread-safe.
 */
final class ScriptArgumentEncoder {

    /**
     * What a sliding window's count of windows is raised by, so the count says the algorithm ({@code SLIDING} in
     * decide.lua and refund.lua): above any count of windows ({@link Bucket#MAX_WINDOWS}), so a fixed window's
     * count stays the number of windows and a token bucket's is negative.
     */
    static final int SLIDING_WINDOWS = 1_000;

    /**
     * What a token bucket's count of windows is raised by, before it is negated, when its calls reserve their tokens
     * ahead ({@link Bucket#reserves()}; {@code RESERVING} in decide.lua and refund.lua): the item's arguments then end
     * with the microseconds it may reserve ahead, its {@link Bucket#maxWait()}.
     */
    static final int RESERVING = 2_000;

    /** Buckets kept: the configured ones, far below this; a caller inventing buckets gets them encoded per call. */
    private static final int MAX_BUCKETS = 1_024;

    /** Cost 1, the cost of nearly every call, encoded once. */
    private static final byte[] COST_ONE = {'1'};

    /** {@code permits.lua}'s operations, its first argument. */
    private static final byte[] TAKE = ascii("take");
    private static final byte[] GIVE_BACK = ascii("give-back");
    private static final byte[] RENEW = ascii("renew");

    private final KeyLayout keys;
    private final InstantSource clock;
    private final CalendarPeriods periods = new CalendarPeriods();
    private final Map<Bucket, OfBucket> byBucket = new ConcurrentHashMap<>();

    /**
     * @param keys  the store's key layout, whose keys this encodes
     * @param clock the library's clock, which a calendar window's boundary is worked out from
     */
    ScriptArgumentEncoder(KeyLayout keys, InstantSource clock) {
        this.keys = keys;
        this.clock = clock;
    }

    /**
     * The scripts' count of windows for an item of {@code bucket}, which also says its algorithm: the number of
     * windows for a fixed window, negated for a token bucket (raised by {@link #RESERVING} first for one that
     * reserves), plus {@link #SLIDING_WINDOWS} for a sliding window.
     */
    static int windowCount(Bucket bucket) {
        int windows = bucket.limits().size();
        return switch (bucket.algorithm()) {
            case FIXED_WINDOW -> windows;
            case TOKEN_BUCKET -> bucket.reserves() ? -(RESERVING + windows) : -windows;
            case SLIDING_WINDOW -> SLIDING_WINDOWS + windows;
            case CONCURRENCY -> throw new IllegalArgumentException("bucket '" + bucket.name()
                    + "' is a concurrency bucket: its permits go through permits.lua, never decide.lua");
        };
    }

    /** {@code bucket}'s encoded parts, made at its first call and kept. */
    OfBucket of(Bucket bucket) {
        OfBucket known = byBucket.get(bucket);
        if (known != null) {
            return known;
        }
        List<Limit> limits = bucket.limits();
        byte[][] keyEnds = new byte[limits.size()][];
        byte[][] windows = new byte[1 + 2 * limits.size() + (bucket.reserves() ? 1 : 0)][];
        windows[0] = ascii(windowCount(bucket)); // also the script's algorithm
        if (bucket.reserves()) {
            windows[windows.length - 1] = ascii(TokenBucketTiming.aheadMicros(bucket));
        }
        for (int i = 0; i < limits.size(); i++) {
            keyEnds[i] = KeyLayout.keyEnd(bucket, i).getBytes(StandardCharsets.US_ASCII);
            if (bucket.isTokenBucket()) {
                windows[1 + 2 * i] = ascii(capacity(bucket, i));
                windows[2 + 2 * i] = ascii(tokenIntervalMicros(bucket, i));
            } else {
                windows[1 + 2 * i] = ascii(limits.get(i).limit());
                windows[2 + 2 * i] = ascii(limits.get(i).window().toMillis());
            }
        }
        OfBucket made = new OfBucket(keys.keyStart(bucket).getBytes(StandardCharsets.UTF_8), keyEnds, windows,
                bucket.hasCalendarWindow() ? this : null, bucket);
        if (byBucket.size() < MAX_BUCKETS) {
            byBucket.putIfAbsent(bucket, made);
        }
        return made;
    }

    /**
     * {@code decide.lua}'s keys then arguments for the items from {@code from} to {@code to} (excluded); the key
     * count goes in {@code keyCountOut[0]}.
     */
    byte[][] parameters(List<StoreItem> items, int from, int to, int[] keyCountOut) {
        int keyCount = 0;
        int argumentCount = 0;
        for (int i = from; i < to; i++) {
            OfBucket ofBucket = of(items.get(i).bucket());
            keyCount += ofBucket.keyCount();
            argumentCount += ofBucket.argumentCount();
        }
        byte[][] parameters = new byte[keyCount + argumentCount][];
        int key = 0;
        int argument = keyCount;
        for (int i = from; i < to; i++) {
            StoreItem item = items.get(i);
            OfBucket ofBucket = of(item.bucket());
            ofBucket.putKeys(item.key(), parameters, key);
            ofBucket.putArguments(item.cost(), parameters, argument);
            key += ofBucket.keyCount();
            argument += ofBucket.argumentCount();
        }
        keyCountOut[0] = keyCount;
        return parameters;
    }

    /**
     * {@code refund.lua}'s keys then arguments for the refunds from {@code from} to {@code to} (excluded); the key
     * count goes in {@code keyCountOut[0]}.
     */
    byte[][] refundParameters(List<StoreRefund> refunds, int from, int to, int[] keyCountOut) {
        String[][] texts = new String[to - from][];
        int keyCount = 0;
        int argumentCount = 0;
        for (int i = from; i < to; i++) {
            keyCount += of(refunds.get(i).bucket()).keyCount();
            texts[i - from] = refundArguments(refunds.get(i));
            argumentCount += texts[i - from].length;
        }
        byte[][] parameters = new byte[keyCount + argumentCount][];
        int key = 0;
        int argument = keyCount;
        for (int i = from; i < to; i++) {
            OfBucket ofBucket = of(refunds.get(i).bucket());
            ofBucket.putKeys(refunds.get(i).key(), parameters, key);
            key += ofBucket.keyCount();
            for (String text : texts[i - from]) {
                parameters[argument++] = text.getBytes(StandardCharsets.US_ASCII);
            }
        }
        keyCountOut[0] = keyCount;
        return parameters;
    }

    /**
     * {@code refund.lua}'s arguments for one refund, as text: the cost, the count of windows ({@link #windowCount},
     * which says the algorithm), then per window a fixed or sliding window's length in milliseconds and the
     * refund's milliseconds until the window it was counted in ends, or a token bucket's capacity and token
     * interval in microseconds.
     */
    static String[] refundArguments(StoreRefund refund) {
        Bucket bucket = refund.bucket();
        List<Limit> limits = bucket.limits();
        String[] arguments = new String[2 + 2 * limits.size() + (bucket.reserves() ? 1 : 0)];
        arguments[0] = Long.toString(refund.cost());
        if (bucket.reserves()) {
            arguments[arguments.length - 1] = Long.toString(TokenBucketTiming.aheadMicros(bucket));
        }
        arguments[1] = Integer.toString(windowCount(bucket));
        for (int i = 0; i < limits.size(); i++) {
            if (bucket.isTokenBucket()) {
                arguments[2 + 2 * i] = Long.toString(capacity(bucket, i));
                arguments[3 + 2 * i] = Long.toString(tokenIntervalMicros(bucket, i));
            } else {
                arguments[2 + 2 * i] = Long.toString(limits.get(i).window().toMillis());
                arguments[3 + 2 * i] = Long.toString(refund.endsInMillis()[i]);
            }
        }
        return arguments;
    }

    /**
     * {@code permits.lua}'s parameters for a take: the permit's key (the script's one key), then {@code take}, the
     * permit's id ({@link StorePermit#CHECK}, 0, only counts), the bucket's permits per key and the lease in
     * milliseconds.
     */
    byte[][] takeParameters(StorePermit permit) {
        return new byte[][] {permitsKey(permit), TAKE, ascii(permit.id()), ascii(permit.bucket().limit()),
            ascii(permit.leaseMillis())};
    }

    /**
     * {@code permits.lua}'s parameters to give back the permits from {@code from} to {@code to} (excluded): their
     * keys (as many as permits), then {@code give-back} and each permit's id.
     */
    byte[][] giveBackParameters(List<StorePermit> permits, int from, int to) {
        int count = to - from;
        byte[][] parameters = new byte[2 * count + 1][];
        parameters[count] = GIVE_BACK;
        for (int i = 0; i < count; i++) {
            StorePermit permit = permits.get(from + i);
            parameters[i] = permitsKey(permit);
            parameters[count + 1 + i] = ascii(permit.id());
        }
        return parameters;
    }

    /**
     * {@code permits.lua}'s parameters to renew the permits from {@code from} to {@code to} (excluded): their keys
     * (as many as permits), then {@code renew} and per permit its id and its lease in milliseconds.
     */
    byte[][] renewParameters(List<StorePermit> permits, int from, int to) {
        int count = to - from;
        byte[][] parameters = new byte[3 * count + 1][];
        parameters[count] = RENEW;
        for (int i = 0; i < count; i++) {
            StorePermit permit = permits.get(from + i);
            parameters[i] = permitsKey(permit);
            parameters[count + 1 + 2 * i] = ascii(permit.id());
            parameters[count + 2 + 2 * i] = ascii(permit.leaseMillis());
        }
        return parameters;
    }

    /** A permit's key ({@link KeyLayout#permitsKey}) as bytes. */
    byte[] permitsKey(StorePermit permit) {
        return keys.permitsKey(permit.bucket(), permit.key()).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] ascii(long value) {
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** A calendar window's length for a call now: the milliseconds until its period ends. */
    private byte[] calendarWindowMillis(Bucket bucket) {
        return ascii(periods.windowMillis(bucket, clock.millis()));
    }

    /**
     * One bucket's encoded parts.
     *
     * @param keyStart {@link KeyLayout#keyStart} in UTF-8
     * @param keyEnds  each window's key end ({@link KeyLayout#keyEnd}), in the bucket's order
     * @param windows  the count of windows ({@link #windowCount}, which marks the algorithm), then each
     *                 window's two numbers in the bucket's order: the script's arguments after the item's cost
     * @param calendar for a bucket of a calendar window, the encoder that works its length out per call; else null
     * @param bucket   the bucket
     */
    record OfBucket(byte[] keyStart, byte[][] keyEnds, byte[][] windows, ScriptArgumentEncoder calendar,
                    Bucket bucket) {

        /** How many of {@link #parameters}'s first entries are keys. */
        int keyCount() {
            return keyEnds.length;
        }

        /** How many script arguments an item of this bucket takes: its cost, then {@link #windows}. */
        int argumentCount() {
            return 1 + windows.length;
        }

        /** Writes an item's window keys into {@code parameters} from {@code at}. */
        void putKeys(String key, byte[][] parameters, int at) {
            for (int i = 0; i < keyEnds.length; i++) {
                parameters[at + i] = counterKey(key, keyEnds[i]);
            }
        }

        /** Writes an item's arguments (its cost, then {@link #windows}) into {@code parameters} from {@code at}. */
        void putArguments(long cost, byte[][] parameters, int at) {
            parameters[at] = cost == 1 ? COST_ONE : ascii(cost);
            System.arraycopy(windows, 0, parameters, at + 1, windows.length);
            if (calendar != null) {
                parameters[at + 3] = calendar.calendarWindowMillis(bucket); // the one window's length, per call
            }
        }

        /**
         * {@code decide.lua}'s parameters for one item: each window's key, then the cost, the count of windows
         * ({@link #windowCount}) and each window's two numbers.
         */
        byte[][] parameters(String key, long cost) {
            byte[][] parameters = new byte[keyEnds.length + argumentCount()][];
            putKeys(key, parameters, 0);
            putArguments(cost, parameters, keyEnds.length);
            return parameters;
        }

        /** The key of a one-window bucket (of the first window of several): its hash tag is every window's. */
        byte[] counterKey(String key) {
            return counterKey(key, keyEnds[0]);
        }

        private byte[] counterKey(String key, byte[] keyEnd) {
            int length = key.length();
            byte[] counter = new byte[keyStart.length + length + keyEnd.length];
            System.arraycopy(keyStart, 0, counter, 0, keyStart.length);
            for (int i = 0; i < length; i++) {
                char c = key.charAt(i);
                if (c >= 0x80) {
                    return utf8(key, keyEnd); // hashed keys are ASCII; any other key is encoded in full
                }
                counter[keyStart.length + i] = (byte) c;
            }
            System.arraycopy(keyEnd, 0, counter, keyStart.length + length, keyEnd.length);
            return counter;
        }

        private byte[] utf8(String key, byte[] keyEnd) {
            byte[] encoded = key.getBytes(StandardCharsets.UTF_8);
            byte[] counter = new byte[keyStart.length + encoded.length + keyEnd.length];
            System.arraycopy(keyStart, 0, counter, 0, keyStart.length);
            System.arraycopy(encoded, 0, counter, keyStart.length, encoded.length);
            System.arraycopy(keyEnd, 0, counter, keyStart.length + encoded.length, keyEnd.length);
            return counter;
        }
    }
}
