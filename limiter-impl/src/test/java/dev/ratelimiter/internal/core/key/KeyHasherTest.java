package dev.ratelimiter.internal.core.key;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class KeyHasherTest {

    @Test
    @DisplayName("without a secret: SHA-256, base64url without padding (FIPS 180-4 test vector 'abc')")
    void sha256() {
        KeyHasher hasher = new KeyHasher(Optional.empty());
        assertThat(hasher.keyed()).isFalse();
        // SHA-256("abc") = ba7816bf 8f01cfea 414140de 5dae2223 b00361a3 96177a9c b410ff61 f20015ad
        assertThat(hasher.hash("abc")).isEqualTo("ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
    }

    @Test
    @DisplayName("with a secret: HMAC-SHA-256 (RFC 4231 test case 2)")
    void hmac() {
        KeyHasher hasher = new KeyHasher(Optional.of("Jefe"));
        assertThat(hasher.keyed()).isTrue();
        // 5bdcc146 bf60754e 6a042426 089575c7 5a003f08 9d273983 9dec58b9 64ec3843
        assertThat(hasher.hash("what do ya want for nothing?"))
                .isEqualTo("W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM");
    }

    @Test
    @DisplayName("the hash never contains the key and has the store-safe alphabet")
    void noClearText() {
        String hash = new KeyHasher(Optional.of("s3cret")).hash("alice@example.com");
        assertThat(hash).doesNotContain("alice").hasSize(43).matches("[A-Za-z0-9_-]+");
    }

    @Test
    @DisplayName("a blank secret is refused")
    void blankSecret() {
        assertThatIllegalArgumentException().isThrownBy(() -> new KeyHasher(Optional.of("  ")));
    }

    @Test
    @DisplayName("keys past the ASCII buffer (long, non-ASCII) hash as their UTF-8 bytes, the next ASCII key as its own")
    void longAndNonAsciiKeys() throws Exception {
        KeyHasher hasher = new KeyHasher(Optional.of("s3cret"));
        String longKey = "x".repeat(300) + "@example.com";
        assertThat(hasher.hash(longKey)).isEqualTo(hmac("s3cret", longKey));
        assertThat(hasher.hash("j\u00f6rg@example.com")).isEqualTo(hmac("s3cret", "j\u00f6rg@example.com"));
        assertThat(hasher.hash("bob")).isEqualTo(hmac("s3cret", "bob"));
        assertThat(hasher.hash("")).isEqualTo(hmac("s3cret", ""));
    }

    @Test
    @DisplayName("16 threads hashing at once get the hash of their own key, with and without a secret")
    void concurrentCalls() throws Exception {
        for (Optional<String> secret : List.of(Optional.of("s3cret"), Optional.<String>empty())) {
            KeyHasher hasher = new KeyHasher(secret);
            KeyHasher reference = new KeyHasher(secret);
            ExecutorService threads = Executors.newFixedThreadPool(16);
            try {
                List<Future<List<String>>> results = new ArrayList<>();
                for (int t = 0; t < 16; t++) {
                    int thread = t;
                    results.add(threads.submit(() -> {
                        List<String> wrong = new ArrayList<>();
                        for (int i = 0; i < 2_000; i++) {
                            String key = "user-" + thread + "-" + i;
                            String hash = hasher.hash(key);
                            synchronized (reference) {
                                if (!hash.equals(reference.hash(key))) {
                                    wrong.add(key);
                                }
                            }
                        }
                        return wrong;
                    }));
                }
                for (Future<List<String>> result : results) {
                    assertThat(result.get()).isEmpty();
                }
            } finally {
                threads.shutdownNow();
            }
        }
    }

    private static String hmac(String secret, String key) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(key.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    @DisplayName("a key is hashed after its namespace's prefix, in place: the hash of the two joined, ASCII, long or "
            + "not; the namespaces of one text hash apart")
    void namespaces() {
        for (Optional<String> secret : List.of(Optional.<String>empty(), Optional.of("a-test-secret"))) {
            KeyHasher hasher = new KeyHasher(secret);
            for (String key : List.of("127.0.0.1", "", "Zoë@example.com", "k".repeat(300))) {
                for (KeyNamespace namespace : KeyNamespace.values()) {
                    assertThat(hasher.hash(namespace, key)).isEqualTo(hasher.hash(namespace.prefix() + key));
                }
                assertThat(List.of(hasher.hash(KeyNamespace.APPLICATION, key), hasher.hash(KeyNamespace.PRINCIPAL, key),
                        hasher.hash(KeyNamespace.CLIENT_ADDRESS, key))).doesNotHaveDuplicates();
            }
        }
    }
}
