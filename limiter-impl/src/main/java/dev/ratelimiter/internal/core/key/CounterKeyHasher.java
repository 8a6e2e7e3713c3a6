package dev.ratelimiter.internal.core.key;

import java.util.Objects;

/**
 * The two keys of one decision, from its normalized key: the key the limiter chain counts under, and the key a
 * denial event carries ({@code RateLimitDenied.hashedKey}). With a shared store (Valkey, PostgreSQL) both are the
 * {@link KeyHasher}'s HMAC-SHA-256 or SHA-256, since every replica must count one key alike. In memory the counter
 * key never leaves the process: it is the faster {@link InProcessKeyHasher}'s, and only a denial pays for the
 * event's HMAC (docs/guide.md#keys-and-privacy). Thread-safe.
 */
public final class CounterKeyHasher {

    private final KeyHasher shared;
    private final InProcessKeyHasher local; // null: counted under the shared hash

    private CounterKeyHasher(KeyHasher shared, InProcessKeyHasher local) {
        this.shared = Objects.requireNonNull(shared, "shared");
        this.local = local;
    }

    /** Counted under {@code hasher}'s hash: for a shared store, whose replicas must agree on every key. */
    public static CounterKeyHasher shared(KeyHasher hasher) {
        return new CounterKeyHasher(hasher, null);
    }

    /**
     * Counted under a keyed hash of this process's own (random key, made here), the event's key from
     * {@code hasher}: for the in-memory backend.
     */
    public static CounterKeyHasher inProcess(KeyHasher hasher) {
        return new CounterKeyHasher(hasher, new InProcessKeyHasher());
    }

    /**
     * @param namespace     where the key comes from ({@link KeyNamespace}: keys of different sources never meet)
     * @param normalizedKey the key after {@link KeyNormalizer}
     * @return what the limiter chain counts: never the key in clear
     */
    public String counterKey(KeyNamespace namespace, String normalizedKey) {
        return local == null ? shared.hash(namespace, normalizedKey) : local.hash(namespace, normalizedKey);
    }

    /**
     * @param namespace     where the key comes from
     * @param normalizedKey the key after {@link KeyNormalizer}
     * @param counterKey    what {@link #counterKey} returned for them
     * @return the key a denial event carries: HMAC-SHA-256 or SHA-256 of the namespace's prefix and the key, 43
     *         characters of base64url
     */
    public String eventKey(KeyNamespace namespace, String normalizedKey, String counterKey) {
        return local == null ? counterKey : shared.hash(namespace, normalizedKey);
    }
}
