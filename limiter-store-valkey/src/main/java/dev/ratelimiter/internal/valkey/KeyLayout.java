package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;

/**
 * The store's keys, as text (the script's keys as bytes, encoded once per bucket: {@link ScriptArgumentEncoder}).
 *
 * <p>Keys of a fixed window: {@code <prefix>{<bucket>:<hashed key>}} for a bucket of one window (the key
 * docs/stores.md names); {@code <prefix>{<bucket>:<hashed key>}:<window>} for each window of a bucket of several
 * ({@code :1s}, {@code :1h}: {@link Limit#windowName()}). Keys of a token bucket:
 * {@code <prefix>{<bucket>:<hashed key>}:tokens}, and {@code ...:tokens:<window>} for each of several; their own
 * names, so no algorithm reads another's state as its own, and a bucket whose algorithm changes starts afresh. Keys
 * of a sliding window, for the same reasons: {@code <prefix>{<bucket>:<hashed key>}:sliding}, and
 * {@code ...:sliding:<window>} for each of several. One key per window rather than one hash with a field per window,
 * because a window ends by its key's expiry (PEXPIRE, PTTL), which Valkey and Redis keep per key, not per hash field
 * on every supported version. The braces make {@code {<bucket>:<hashed key>}} the Redis Cluster hash tag of every
 * window's key, so one key's windows share a slot and one script decides them on one node.
 *
 * <p>A concurrency bucket's permits: one sorted set, {@code <prefix>{<bucket>:<hashed key>}:permits}
 * ({@code permits.lua}), in the same hash tag and named apart from the other algorithms' keys for the same reasons;
 * a concurrency bucket has one "window", its lease, so never a window's name after it. Like every key, it holds the
 * hashed key only, never the caller's in clear. Thread-safe.
 */
final class KeyLayout {

    /** What follows the hash tag in a token bucket's keys. */
    static final String TOKENS = ":tokens";
    /** What follows the hash tag in a sliding window's keys. */
    static final String SLIDING = ":sliding";
    /** What follows the hash tag in a concurrency bucket's key, its permits. */
    static final String PERMITS = ":permits";

    private final String keyPrefix;

    /** @param keyPrefix prepended to every key ({@code ratelimiter.valkey.key-prefix}) */
    KeyLayout(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    /** The prefix every key starts with. */
    String keyPrefix() {
        return keyPrefix;
    }

    /**
     * What every key of {@code bucket} starts with, up to the hashed key: the prefix, an opening brace, the bucket's
     * name and a colon.
     */
    String keyStart(Bucket bucket) {
        return keyPrefix + '{' + bucket.name() + ':';
    }

    /**
     * {@code <prefix>{<bucket>:<hashed key>}}: the counter of a fixed-window bucket of one window, and the start of
     * every key of a bucket, whose hash tag it holds (so it gives the slot of all of them).
     */
    String counterKey(Bucket bucket, String key) {
        return keyPrefix + '{' + bucket.name() + ':' + key + '}';
    }

    /** Each window's key, in the bucket's order (see the class comment for the layout). */
    String[] counterKeys(Bucket bucket, String key) {
        String tagged = keyStart(bucket) + key;
        String[] keys = new String[bucket.limits().size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = tagged + keyEnd(bucket, i);
        }
        return keys;
    }

    /** {@code <prefix>{<bucket>:<hashed key>}:permits}: a concurrency bucket's permits, one sorted set per key. */
    String permitsKey(Bucket bucket, String key) {
        return counterKey(bucket, key) + PERMITS;
    }

    /**
     * Every key the store keeps for {@code key} of {@code bucket}, which a reset deletes: each window's key
     * ({@link #counterKeys}), or a concurrency bucket's permits ({@link #permitsKey}).
     */
    String[] keysOf(Bucket bucket, String key) {
        return bucket.isConcurrency() ? new String[] {permitsKey(bucket, key)} : counterKeys(bucket, key);
    }

    /**
     * What follows the hashed key in window {@code index}'s key: the brace that closes the hash tag, then
     * {@link #TOKENS} for a token bucket, {@link #SLIDING} for a sliding window or {@link #PERMITS} for a
     * concurrency bucket (nothing for a fixed window), then, in a bucket of several windows, a colon and the
     * window's name ({@link Limit#windowName()}).
     */
    static String keyEnd(Bucket bucket, int index) {
        String algorithm = switch (bucket.algorithm()) {
            case FIXED_WINDOW -> "}";
            case TOKEN_BUCKET -> "}" + TOKENS;
            case SLIDING_WINDOW -> "}" + SLIDING;
            case CONCURRENCY -> "}" + PERMITS; // one "window", its lease: never several
        };
        if (!bucket.hasSeveralWindows()) {
            return algorithm;
        }
        return algorithm + ':' + bucket.limits().get(index).windowName();
    }
}
