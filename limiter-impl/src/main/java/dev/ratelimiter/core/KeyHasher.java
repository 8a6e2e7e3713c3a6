package dev.ratelimiter.core;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Hashes normalized keys before they are counted, so that no login, principal name or address reaches a store
 * in clear and no key can break a store's key layout.
 *
 * <p>With a secret ({@code ratelimiter.key-secret}, the same on every replica): HMAC-SHA-256 (RFC 2104), which
 * also resists guessing a key from its hash. Without one: SHA-256 (FIPS 180-4), which a startup warning
 * mentions, since logins and IPv4 addresses are few enough to be guessed from an unkeyed hash. Output: 43
 * characters of unpadded base64url (RFC 4648 §5).
 */
public final class KeyHasher {

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private final ThreadLocal<Hash> hashes;
    private final boolean keyed;

    /**
     * @param secret the HMAC key, or empty for plain SHA-256
     * @throws IllegalArgumentException if the secret is blank
     */
    public KeyHasher(Optional<String> secret) {
        if (secret.isPresent() && secret.get().isBlank()) {
            throw new IllegalArgumentException("the key secret must not be blank");
        }
        this.keyed = secret.isPresent();
        byte[] keyBytes = secret.map(s -> s.getBytes(StandardCharsets.UTF_8)).orElse(null);
        // Mac and MessageDigest are not thread-safe and costly to look up: one per thread, per hasher.
        this.hashes = ThreadLocal.withInitial(() -> keyBytes == null ? sha256() : hmac(keyBytes));
        hashes.get(); // fail now, at startup, if the platform lacks the algorithm
    }

    /** {@code true} when hashing with a secret (HMAC-SHA-256). */
    public boolean keyed() {
        return keyed;
    }

    /**
     * @param normalizedKey the key after {@link KeyNormalizer}
     * @return its hash, 43 characters of unpadded base64url
     */
    public String hash(String normalizedKey) {
        return ENCODER.encodeToString(hashes.get().apply(normalizedKey.getBytes(StandardCharsets.UTF_8)));
    }

    private interface Hash {
        byte[] apply(byte[] input);
    }

    private static Hash sha256() {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return digest::digest;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is not available on this JVM", e);
        }
    }

    private static Hash hmac(byte[] key) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac::doFinal;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available on this JVM", e);
        }
    }
}
