package dev.ratelimiter.spi;

import dev.ratelimiter.Bucket;

import java.util.Objects;

/**
 * One permit of a {@link dev.ratelimiter.Algorithm#CONCURRENCY concurrency} bucket: a call in flight for one hashed
 * key, named by an id its replica drew at random, so that taking, renewing and giving it back are idempotent
 * (docs/stores.md#permits). Its lease lasts the bucket's {@link Bucket#lease()}.
 *
 * @param bucket the concurrency bucket; {@link Bucket#limit()} permits per key
 * @param key    the hashed key: never a login, principal or address in clear
 * @param id     the permit's id, never 0; {@link #CHECK} asks {@link RateLimitStore#take} to count the permits held
 *               without taking one
 */
public record StorePermit(Bucket bucket, String key, long id) {

    /** The id of a take that only counts the permits held (a quota read): it takes none. */
    public static final long CHECK = 0;

    /**
     * @throws NullPointerException     if {@code bucket} or {@code key} is {@code null}
     * @throws IllegalArgumentException if {@code bucket} is not a concurrency bucket
     */
    public StorePermit {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(key, "key");
        if (!bucket.isConcurrency()) {
            throw new IllegalArgumentException("bucket '" + bucket.name() + "' is a "
                    + bucket.algorithm().configName() + ", not a concurrency bucket");
        }
    }

    /** {@return the lease's length in milliseconds: the bucket's {@link Bucket#lease()}} */
    public long leaseMillis() {
        return bucket.lease().toMillis();
    }

    /** {@return whether this take only counts the permits held ({@link #CHECK})} */
    public boolean isCheck() {
        return id == CHECK;
    }
}
