package dev.ratelimiter.internal.core.key;

import com.google.common.hash.Hashing;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class InProcessKeyHasherTest {

    /** The paper's key: bytes 00 to 0f. */
    private static final long K0 = 0x0706050403020100L;
    private static final long K1 = 0x0f0e0d0c0b0a0908L;

    @Test
    @DisplayName("SipHash-2-4 test vectors of the reference code: key 00..0f, messages 00..(n-1) of 0, 2, 8 and 16 bytes")
    void referenceVectors() {
        InProcessKeyHasher hasher = new InProcessKeyHasher(K0, K1);
        // vectors_sip64 of the reference implementation, read as little-endian 64-bit numbers
        assertThat(hasher.sipHash24("")).isEqualTo(0x726fdb47dd0e0e31L);
        assertThat(hasher.sipHash24(bytesAsChars(2))).isEqualTo(0x0d6c8009d9a94f5aL);
        assertThat(hasher.sipHash24(bytesAsChars(8))).isEqualTo(0x93f5f5799a932462L);
        assertThat(hasher.sipHash24(bytesAsChars(16))).isEqualTo(0x3f2acc7f57c29bdbL);
    }

    @Property
    @Label("equals Guava's SipHash-2-4 of the same UTF-16LE code units, for any key and any string")
    void sameAsGuava(@ForAll long k0, @ForAll long k1, @ForAll @StringLength(max = 70) String key) {
        assertThat(new InProcessKeyHasher(k0, k1).sipHash24(key))
                .isEqualTo(Hashing.sipHash24(k0, k1).hashUnencodedChars(key).asLong());
    }

    @Test
    @DisplayName("the hash never contains the key; two processes (two random keys) hash one login apart")
    void keyedAndRandom() {
        InProcessKeyHasher one = new InProcessKeyHasher();
        InProcessKeyHasher other = new InProcessKeyHasher();
        assertThat(one.hash(KeyNamespace.APPLICATION, "alice@example.com")).doesNotContain("alice")
                .matches("[0-9a-f]{16}")
                .isEqualTo(one.hash(KeyNamespace.APPLICATION, "alice@example.com"))
                .isNotEqualTo(other.hash(KeyNamespace.APPLICATION, "alice@example.com"))
                .as("another namespace").isNotEqualTo(one.hash(KeyNamespace.PRINCIPAL, "alice@example.com"));
    }

    @Test
    @DisplayName("a hash below 2^60 keeps its leading zeros: every key is 16 hexadecimal digits, as logged")
    void fixedWidth() {
        InProcessKeyHasher hasher = new InProcessKeyHasher(K0, K1);
        // one key in 16 hashes to a top digit of 0; the search is deterministic under the paper's key
        String key = IntStream.range(0, 1_000).mapToObj(i -> "key-" + i)
                .filter(k -> hasher.sipHash24("a:\0\0" + k) >>> 60 == 0).findFirst().orElseThrow();
        assertThat(hasher.hash(KeyNamespace.APPLICATION, key)).startsWith("0").hasSize(16)
                .isEqualTo(String.format("%016x", hasher.sipHash24("a:\0\0" + key)));
    }

    @Property
    @Label("a key hashed after its namespace's precomputed first word equals Guava's SipHash-2-4 of the prefix, two NUL "
            + "characters and the key joined, for any key")
    void namespaceWordPrecomputed(@ForAll long k0, @ForAll long k1, @ForAll @StringLength(max = 70) String key) {
        InProcessKeyHasher hasher = new InProcessKeyHasher(k0, k1);
        for (KeyNamespace namespace : KeyNamespace.values()) {
            String joined = namespace.prefix() + "\0\0" + key;
            assertThat(hasher.sipHash24(namespace, key))
                    .isEqualTo(hasher.sipHash24(joined))
                    .isEqualTo(Hashing.sipHash24(k0, k1).hashUnencodedChars(joined).asLong());
        }
    }

    @Test
    @DisplayName("the namespaces' first words are distinct, so one key in two namespaces is two inputs")
    void namespacesApart() {
        assertThat(java.util.Arrays.stream(KeyNamespace.values()).map(InProcessKeyHasher::firstWord).distinct())
                .hasSize(KeyNamespace.values().length);
    }

    /** A string whose UTF-16LE bytes are 00, 01, ... {@code bytes - 1} (an even count). */
    private static String bytesAsChars(int bytes) {
        StringBuilder chars = new StringBuilder();
        for (int i = 0; i < bytes; i += 2) {
            chars.append((char) (i | (i + 1) << 8));
        }
        return chars.toString();
    }
}
