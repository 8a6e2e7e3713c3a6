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

    private final Object prototype; // a MessageDigest or an initialised Mac, cloned per call
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
        // Mac and MessageDigest are not thread-safe and costly to look up: one initialised prototype, cloned per
        // call. (Not a ThreadLocal: on an application server its values would outlive an undeployment.)
        this.prototype = secret.isPresent() ? hmac(secret.get().getBytes(StandardCharsets.UTF_8)) : sha256();
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
        byte[] input = normalizedKey.getBytes(StandardCharsets.UTF_8);
        try {
            byte[] hash = prototype instanceof Mac mac ? ((Mac) mac.clone()).doFinal(input)
                    : ((MessageDigest) ((MessageDigest) prototype).clone()).digest(input);
            return ENCODER.encodeToString(hash);
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the JVM's " + prototype + " cannot be cloned", e);
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is not available on this JVM", e);
        }
    }

    private static Mac hmac(byte[] key) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available on this JVM", e);
        }
    }
}
