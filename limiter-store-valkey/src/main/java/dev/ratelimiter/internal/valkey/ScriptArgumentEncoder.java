package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The script's keys and arguments as the bytes Jedis sends, so a decision encodes only its key (and a cost other
 * than 1): per bucket, the key's start (the prefix, an opening brace, the bucket's name and a colon), each window's
 * key end (for a fixed window {@code }} for a one-window bucket, {@code }:<window>} for each of several; for a token
 * bucket {@code }:tokens} and {@code }:tokens:<window>}; for a sliding window {@code }:sliding} and
 * {@code }:sliding:<window>}), and the count of windows, which marks the algorithm
 * ({@link ValkeyStore#windowCount}: the number of windows for a fixed window, negated for a token bucket, plus
 * {@link ValkeyStore#SLIDING_WINDOWS} for a sliding window) and each window's numbers (a fixed or sliding window's
 * limit and length in milliseconds, a token bucket's capacity and token interval in microseconds) are encoded once
 * and kept. The layout is {@link ValkeyStore}'s. Thread-safe.
 */
final class ScriptArgumentEncoder {

    /** Buckets kept: the configured ones, far below this; a caller inventing buckets gets them encoded per call. */
    private static final int MAX_BUCKETS = 1_024;

    /** Cost 1, the cost of nearly every call, encoded once. */
    private static final byte[] COST_ONE = {'1'};

    private final String keyPrefix;
    private final Map<Bucket, OfBucket> byBucket = new ConcurrentHashMap<>();

    ScriptArgumentEncoder(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    OfBucket of(Bucket bucket) {
        OfBucket known = byBucket.get(bucket);
        if (known != null) {
            return known;
        }
        List<Bucket.Limit> limits = bucket.limits();
        byte[][] keyEnds = new byte[limits.size()][];
        byte[][] windows = new byte[1 + 2 * limits.size()][];
        windows[0] = ascii(ValkeyStore.windowCount(bucket)); // also the script's algorithm
        for (int i = 0; i < limits.size(); i++) {
            keyEnds[i] = ValkeyStore.keyEnd(bucket, i).getBytes(StandardCharsets.US_ASCII);
            if (bucket.isTokenBucket()) {
                windows[1 + 2 * i] = ascii(bucket.capacity(i));
                windows[2 + 2 * i] = ascii(bucket.tokenIntervalMicros(i));
            } else {
                windows[1 + 2 * i] = ascii(limits.get(i).limit());
                windows[2 + 2 * i] = ascii(limits.get(i).window().toMillis());
            }
        }
        OfBucket made = new OfBucket((keyPrefix + '{' + bucket.name() + ':').getBytes(StandardCharsets.UTF_8),
                keyEnds, windows);
        if (byBucket.size() < MAX_BUCKETS) {
            byBucket.putIfAbsent(bucket, made);
        }
        return made;
    }

    private static byte[] ascii(long value) {
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * One bucket's encoded parts.
     *
     * @param keyStart {@code <prefix>{<bucket>:} in UTF-8
     * @param keyEnds  each window's key end, in the bucket's order
     * @param windows  the count of windows ({@link ValkeyStore#windowCount}, which marks the algorithm), then each
     *                 window's two numbers in the bucket's order: the script's arguments after the item's cost
     */
    record OfBucket(byte[] keyStart, byte[][] keyEnds, byte[][] windows) {

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
        }

        /**
         * EVAL's parameters for one item: each window's key, then the cost, the count of windows
         * ({@link ValkeyStore#windowCount}) and each window's two numbers.
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
