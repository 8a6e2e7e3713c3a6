package dev.ratelimiter.valkey;

import dev.ratelimiter.Bucket;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The script's arguments as the bytes Jedis sends, so a decision encodes only its key: per bucket, the counter
 * key's start (the prefix, an opening brace, the bucket's name and a colon) and the window in milliseconds are
 * encoded once and kept.
 * Thread-safe.
 */
final class ScriptArguments {

    /** Buckets kept: the configured ones, far below this; a caller inventing buckets gets them encoded per call. */
    private static final int MAX_BUCKETS = 1_024;

    private final String keyPrefix;
    private final Map<Bucket, OfBucket> byBucket = new ConcurrentHashMap<>();

    ScriptArguments(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    OfBucket of(Bucket bucket) {
        OfBucket known = byBucket.get(bucket);
        if (known != null) {
            return known;
        }
        OfBucket made = new OfBucket((keyPrefix + '{' + bucket.name() + ':').getBytes(StandardCharsets.UTF_8),
                Long.toString(bucket.window().toMillis()).getBytes(StandardCharsets.US_ASCII));
        if (byBucket.size() < MAX_BUCKETS) {
            byBucket.putIfAbsent(bucket, made);
        }
        return made;
    }

    /**
     * One bucket's encoded arguments.
     *
     * @param keyStart the prefix, an opening brace, the bucket's name and a colon, in UTF-8
     * @param window   the window in milliseconds, decimal ASCII
     */
    record OfBucket(byte[] keyStart, byte[] window) {

        /** {@code <prefix>{<bucket>:<key>}} in UTF-8, as {@link ValkeyRateLimiter#counterKey} spells it. */
        byte[] counterKey(String key) {
            int length = key.length();
            byte[] counter = new byte[keyStart.length + length + 1];
            System.arraycopy(keyStart, 0, counter, 0, keyStart.length);
            for (int i = 0; i < length; i++) {
                char c = key.charAt(i);
                if (c >= 0x80) {
                    return utf8(key); // hashed keys are ASCII; any other key is encoded in full
                }
                counter[keyStart.length + i] = (byte) c;
            }
            counter[counter.length - 1] = '}';
            return counter;
        }

        private byte[] utf8(String key) {
            byte[] encoded = key.getBytes(StandardCharsets.UTF_8);
            byte[] counter = new byte[keyStart.length + encoded.length + 1];
            System.arraycopy(keyStart, 0, counter, 0, keyStart.length);
            System.arraycopy(encoded, 0, counter, keyStart.length, encoded.length);
            counter[counter.length - 1] = '}';
            return counter;
        }
    }
}
