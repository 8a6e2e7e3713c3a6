package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The Valkey store's own script and key layout, as the library's jar has them, for the benchmark's bare client
 * loop and {@code redis-benchmark}: read from the classes, never copied, so a change of the script or the layout
 * is measured everywhere at once. In the store's package because both are package-private,
 * and in its test-jar so that no other jar adds classes to that package.
 */
public final class ValkeyLayout {

    private final KeyLayout keys;

    /** @param keyPrefix the store's key prefix, as {@code ratelimiter.valkey.key-prefix} sets it */
    public ValkeyLayout(String keyPrefix) {
        this.keys = new KeyLayout(keyPrefix);
    }

    /**
     * A Jedis client built as the store builds its own (client and pool settings), for the bare loops and
     * Bucket4j; close it when done.
     */
    public static redis.clients.jedis.UnifiedJedis client(ValkeySettings settings) {
        return ValkeyClientFactory.create(settings).commands();
    }

    /** The text of {@code decide.lua}, the script of every algorithm. */
    public static String script() {
        return ValkeyScript.DECIDE.text();
    }

    /** The SHA-1 the store calls the script by (EVALSHA). */
    public static String scriptSha() {
        return ValkeyScript.DECIDE.sha();
    }

    /** The Valkey key the store counts {@code key} of {@code bucket} under. */
    public String counterKey(Bucket bucket, String key) {
        return keys.counterKey(bucket, key);
    }

    /**
     * The script's arguments besides the key, as the store passes them for one attempt: the cost (1), the count
     * of windows (negated for a token bucket, plus 1000 for a sliding window), then each window's two numbers (a
     * fixed or sliding window's limit and its length in milliseconds, a token bucket's capacity and token interval
     * in microseconds).
     */
    public static String[] arguments(Bucket bucket) {
        ScriptArgumentEncoder.OfBucket encoded = new ScriptArgumentEncoder(new KeyLayout(""), java.time.InstantSource.system()).of(bucket);
        byte[][] parameters = encoded.parameters("", 1);
        return Arrays.stream(parameters, encoded.keyCount(), parameters.length)
                .map(argument -> new String(argument, StandardCharsets.US_ASCII)).toArray(String[]::new);
    }
}
