package dev.ratelimiter.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys of a load, made once before it runs so no key is built inside a measured call: raw keys (what an
 * application passes), the hashed keys the decider hands a store, and store keys derived from those.
 */
final class Keys {

    private static final Map<Integer, String[]> HASHED = new ConcurrentHashMap<>();

    private Keys() {
    }

    /** {@code user-<n>@example.com}, as a login bucket sees them. */
    static String[] raw(int count) {
        String[] keys = new String[count];
        for (int i = 0; i < count; i++) {
            keys[i] = "user-" + i + "@example.com";
        }
        return keys;
    }

    /**
     * The keys as the decider hashes them (HMAC-SHA-256, base64url), each count's hashed once per run: every
     * contender of a store asks for the same keys, and 10 000 HMACs take tens of milliseconds of a smoke run.
     */
    static String[] hashed(int count) {
        return HASHED.computeIfAbsent(count, Keys::hash).clone();
    }

    private static String[] hash(int count) {
        String[] raw = raw(count);
        String[] keys = new String[count];
        for (int i = 0; i < count; i++) {
            keys[i] = LibraryPaths.hashedKey(raw[i]);
        }
        return keys;
    }

    static String[] map(String[] keys, java.util.function.UnaryOperator<String> f) {
        String[] mapped = new String[keys.length];
        for (int i = 0; i < keys.length; i++) {
            mapped[i] = f.apply(keys[i]);
        }
        return mapped;
    }
}
