package dev.ratelimiter.core;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Optional;

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
}
