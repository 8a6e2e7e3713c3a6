package dev.ratelimiter.internal.core.key;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * A keyed hash for keys that never leave this process (the in-memory backend's counters): SipHash-2-4 (Aumasson
 * and Bernstein, "SipHash: a fast short-input PRF", 2012) of one word naming the key's namespace
 * ({@link #firstWord}) followed by the normalized key's UTF-16LE code units, under a
 * 128-bit key drawn from {@link SecureRandom} when the instance is made. Output: the 64-bit hash as exactly 16
 * lower-case hexadecimal digits, leading zeros kept, so every key has one width in a log line.
 *
 * <p>Why not HMAC-SHA-256 here: in memory the hash only has to keep logins and addresses out of the heap in clear
 * and let no client choose a key that shares another's counter. A secret random key gives both (no one outside
 * the process can compute or collide its hashes), and SipHash does it in a few nanoseconds without allocating,
 * where HMAC costs four SHA-256 compressions. Keys bound for a shared store, and the key a denial event carries,
 * stay HMAC-SHA-256 or SHA-256 ({@link KeyHasher}): they must agree across replicas. Two live keys share a
 * counter with probability about n<sup>2</sup>/2<sup>65</sup> for n keys (below 10<sup>-8</sup> at a million).
 *
 * <p>Written here rather than taken from a library: the JDK has no SipHash, and the one well-known Java
 * implementation (Guava's {@code Hashing.sipHash24}) would add a 3 MB dependency to every application for one
 * function, and allocates about 190 bytes per call; the tests check this one against Guava's and the paper's
 * test vectors. Thread-safe and allocation-free but for the returned string.
 */
final class InProcessKeyHasher {

    private static final HexFormat HEX = HexFormat.of();

    private final long k0;
    private final long k1;
    // Per namespace (by ordinal), SipHash's four state words after compressing the namespace's first word: every
    // key of a namespace starts with that word, so it is compressed once here rather than on every call.
    private final long[][] seeded;

    /** A hasher with a fresh random key. */
    InProcessKeyHasher() {
        this(new SecureRandom());
    }

    private InProcessKeyHasher(SecureRandom random) {
        this(random.nextLong(), random.nextLong());
    }

    /** A hasher with a given key, its first 8 bytes little-endian in {@code k0}, for tests. */
    InProcessKeyHasher(long k0, long k1) {
        this.k0 = k0;
        this.k1 = k1;
        KeyNamespace[] namespaces = KeyNamespace.values();
        this.seeded = new long[namespaces.length][];
        for (KeyNamespace namespace : namespaces) {
            long[] v = {k0 ^ 0x736f6d6570736575L, k1 ^ 0x646f72616e646f6dL, k0 ^ 0x6c7967656e657261L,
                    k1 ^ 0x7465646279746573L};
            long m = firstWord(namespace);
            v[3] ^= m;
            for (int round = 0; round < 2; round++) {
                v[0] += v[1]; v[1] = Long.rotateLeft(v[1], 13); v[1] ^= v[0]; v[0] = Long.rotateLeft(v[0], 32);
                v[2] += v[3]; v[3] = Long.rotateLeft(v[3], 16); v[3] ^= v[2];
                v[0] += v[3]; v[3] = Long.rotateLeft(v[3], 21); v[3] ^= v[0];
                v[2] += v[1]; v[1] = Long.rotateLeft(v[1], 17); v[1] ^= v[2]; v[2] = Long.rotateLeft(v[2], 32);
            }
            v[0] ^= m;
            seeded[namespace.ordinal()] = v;
        }
    }

    /**
     * The 8 bytes every key of {@code namespace} is hashed after: its two-character {@link KeyNamespace#prefix()}
     * and two NUL characters, as UTF-16LE. The prefixes are distinct, so keys of two namespaces never give one input.
     */
    static long firstWord(KeyNamespace namespace) {
        String prefix = namespace.prefix();
        return prefix.charAt(0) | (long) prefix.charAt(1) << 16;
    }

    /**
     * @param namespace     where the key comes from, hashed before it ({@link #firstWord})
     * @param normalizedKey the key after {@link KeyNormalizer}
     * @return SipHash-2-4 of the namespace's first word followed by the key's UTF-16LE code units, as 16 lower-case
     *         hexadecimal digits, leading zeros kept
     */
    String hash(KeyNamespace namespace, String normalizedKey) {
        return HEX.toHexDigits(sipHash24(namespace, normalizedKey));
    }

    /**
     * SipHash-2-4 of {@link #firstWord the namespace's first word} followed by {@code key} as UTF-16LE: the same as
     * {@link #sipHash24(String)} of the prefix, two NUL characters and the key, without compressing the first word
     * again.
     */
    long sipHash24(KeyNamespace namespace, String key) {
        return sipHash24(seeded[namespace.ordinal()], Long.BYTES, key);
    }

    /** SipHash-2-4 of {@code chars} as UTF-16LE bytes (two a char, low byte first): the reference, for tests. */
    long sipHash24(String chars) {
        return sipHash24(new long[] {k0 ^ 0x736f6d6570736575L, k1 ^ 0x646f72616e646f6dL, k0 ^ 0x6c7967656e657261L,
                k1 ^ 0x7465646279746573L}, 0, chars);
    }

    /**
     * SipHash-2-4 of {@code key} as UTF-16LE, from the state {@code start} left after {@code startBytes} bytes (0, or
     * a namespace's first word).
     */
    private static long sipHash24(long[] start, int startBytes, String key) {
        long v0 = start[0];
        long v1 = start[1];
        long v2 = start[2];
        long v3 = start[3];
        int length = key.length();
        int whole = length & ~3; // four chars are one 8-byte word
        for (int i = 0; i < whole; i += 4) {
            long m = key.charAt(i) | (long) key.charAt(i + 1) << 16 | (long) key.charAt(i + 2) << 32
                    | (long) key.charAt(i + 3) << 48;
            v3 ^= m;
            // two SipRounds, written out: this loop is the in-memory decision's hot path
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
            v0 ^= m;
        }
        long last = (long) (startBytes + 2 * length) << 56; // the message's length in bytes, modulo 256
        for (int i = whole; i < length; i++) {
            last |= (long) key.charAt(i) << (16 * (i - whole));
        }
        return finish(v0, v1, v2, v3, last);
    }

    /** The last word, two compression rounds and four finalization rounds. */
    private static long finish(long v0, long v1, long v2, long v3, long last) {
        v3 ^= last;
        for (int round = 0; round < 2; round++) {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        v0 ^= last;
        v2 ^= 0xff;
        for (int round = 0; round < 4; round++) {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        return v0 ^ v1 ^ v2 ^ v3;
    }
}
