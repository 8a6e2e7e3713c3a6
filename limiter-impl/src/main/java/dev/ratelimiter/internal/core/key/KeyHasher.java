package dev.ratelimiter.internal.core.key;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Hashes normalized keys before they are counted, so that no login, principal name or address reaches a store
 * in clear and no key can break a store's key layout.
 *
 * <p>With a secret ({@code ratelimiter.key-secret}, the same on every replica): HMAC-SHA-256 (RFC 2104), which
 * also resists guessing a key from its hash. Without one: SHA-256 (FIPS 180-4), which a startup warning
 * mentions, since logins and IPv4 addresses are few enough to be guessed from an unkeyed hash. Output: 43
 * characters of unpadded base64url (RFC 4648 §5). Thread-safe.
 */
public final class KeyHasher {

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final int HASH_BYTES = 32;
    private static final int TEXT_CHARS = 43;
    /** Keys up to this many ASCII characters are hashed from a buffer kept with the digest. */
    private static final int BUFFERED_KEY_CHARS = 256;

    private final Object prototype; // a MessageDigest or an initialised Mac, copied for each new Digest
    private final boolean keyed;
    // Mac and MessageDigest are not thread-safe, and copying one costs more than the hash itself: idle digests wait
    // in slots chosen by thread, so a call takes one, hashes and puts it back without allocating. Not a
    // ThreadLocal: on an application server its values would outlive an undeployment.
    private final AtomicReferenceArray<Digest> idle;
    private final int slotMask;

    /**
     * @param secret the HMAC key, or empty for plain SHA-256
     * @throws IllegalArgumentException if the secret is blank
     */
    public KeyHasher(Optional<String> secret) {
        if (secret.isPresent() && secret.get().isBlank()) {
            throw new IllegalArgumentException("the key secret must not be blank");
        }
        this.keyed = secret.isPresent();
        this.prototype = secret.isPresent() ? hmac(secret.get().getBytes(StandardCharsets.UTF_8)) : sha256();
        int slots = Integer.highestOneBit(Math.max(8, Math.min(64, 8 * Runtime.getRuntime().availableProcessors())));
        this.idle = new AtomicReferenceArray<>(slots);
        this.slotMask = slots - 1;
    }

    /** {@code true} when hashing with a secret (HMAC-SHA-256). */
    public boolean keyed() {
        return keyed;
    }

    /**
     * @param namespace     where the key comes from, hashed before it ({@link KeyNamespace#prefix()})
     * @param normalizedKey the key after {@link KeyNormalizer}
     * @return the hash of the namespace's prefix and the key, 43 characters of unpadded base64url: the same as
     *         {@link #hash(String)} of the two joined, without joining them
     */
    public String hash(KeyNamespace namespace, String normalizedKey) {
        return hash(namespace.prefix(), normalizedKey);
    }

    /**
     * @param input what to hash, as is (tests' vectors; a key to count goes through
     *              {@link #hash(KeyNamespace, String)})
     * @return its hash, 43 characters of unpadded base64url
     */
    public String hash(String input) {
        return hash("", input);
    }

    private String hash(String prefix, String key) {
        int slot = (int) Thread.currentThread().getId() & slotMask;
        Digest digest = idle.getAndSet(slot, null);
        if (digest == null) {
            digest = new Digest(copy(prototype));
        }
        String hash = digest.hash(prefix, key);
        idle.set(slot, digest); // not returned after a failure: its state is unknown
        return hash;
    }

    private static Object copy(Object prototype) {
        try {
            return prototype instanceof Mac mac ? mac.clone() : ((MessageDigest) prototype).clone();
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

    /** One Mac or MessageDigest with the buffers of a call; used by one thread at a time. */
    private static final class Digest {
        private final Mac mac; // null: plain SHA-256
        private final MessageDigest sha256;
        private final byte[] input = new byte[BUFFERED_KEY_CHARS];
        private final byte[] hash = new byte[HASH_BYTES];
        private final byte[] text = new byte[TEXT_CHARS];

        Digest(Object algorithm) {
            this.mac = algorithm instanceof Mac m ? m : null;
            this.sha256 = algorithm instanceof MessageDigest d ? d : null;
        }

        /** The hash of {@code prefix} (ASCII) followed by {@code key}, as UTF-8. */
        String hash(String prefix, String key) {
            byte[] bytes = key.length() <= BUFFERED_KEY_CHARS && ascii(key) ? input
                    : key.getBytes(StandardCharsets.UTF_8);
            int length = bytes == input ? key.length() : bytes.length;
            try {
                for (int i = 0; i < prefix.length(); i++) {
                    if (mac != null) {
                        mac.update((byte) prefix.charAt(i));
                    } else {
                        sha256.update((byte) prefix.charAt(i));
                    }
                }
                if (mac != null) {
                    mac.update(bytes, 0, length);
                    mac.doFinal(hash, 0);
                } else {
                    sha256.update(bytes, 0, length);
                    sha256.digest(hash, 0, HASH_BYTES);
                }
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("a 32-byte buffer was refused for a SHA-256 hash", e);
            }
            ENCODER.encode(hash, text);
            return new String(text, StandardCharsets.ISO_8859_1);
        }

        /** Copies {@code key} into {@link #input} as UTF-8 if it is ASCII (where UTF-8 is one byte a char). */
        private boolean ascii(String key) {
            for (int i = 0; i < key.length(); i++) {
                char c = key.charAt(i);
                if (c >= 0x80) {
                    return false;
                }
                input[i] = (byte) c;
            }
            return true;
        }
    }
}
