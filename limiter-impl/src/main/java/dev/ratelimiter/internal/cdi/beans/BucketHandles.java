package dev.ratelimiter.internal.cdi.beans;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.BucketName;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitBucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.cdi.startup.StartupValidator;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.InjectionPoint;
import jakarta.inject.Inject;

/**
 * Produces the {@link RateLimitBucket} of each {@code @BucketName} injection point: the {@link RateLimitsFacade}
 * with the bucket's name given once. {@link StartupValidator} checks the names of the beans' injection points at
 * startup; one chosen at run time ({@code Instance.select(BucketName.Literal.of(...))}) is checked here.
 */
@ApplicationScoped
public class BucketHandles {

    @Inject
    RateLimitsFacade facade;

    /**
     * The handle of the injection point's bucket.
     *
     * @throws IllegalArgumentException naming the properties to set, if the bucket is not configured
     */
    @Produces
    @BucketName("")
    RateLimitBucket bucket(InjectionPoint point) {
        String name = point.getQualifiers().stream().filter(BucketName.class::isInstance).map(BucketName.class::cast)
                .findFirst().orElseThrow().value();
        facade.bucket(name);
        return new Handle(facade, name);
    }

    /**
     * A bucket by name. The bucket is looked up on each call, a map lookup, so the handle holds no copy of the
     * configuration.
     */
    private record Handle(RateLimitsFacade facade, String name) implements RateLimitBucket {

        @Override
        public Bucket bucket() {
            return facade.bucket(name);
        }

        @Override
        public Verdict consume(CharSequence key, KeyNormalization normalization, long cost) {
            return facade.consume(bucket(), key, normalization, cost);
        }

        @Override
        public Verdict usage(CharSequence key, KeyNormalization normalization) {
            return facade.usage(name, key, normalization);
        }

        @Override
        public void reset(CharSequence key, KeyNormalization normalization) {
            facade.reset(name, key, normalization);
        }

        @Override
        public String toString() {
            return "RateLimitBucket[" + name + "]";
        }
    }
}
