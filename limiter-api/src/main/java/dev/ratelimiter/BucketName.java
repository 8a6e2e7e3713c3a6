package dev.ratelimiter;

import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.enterprise.util.Nonbinding;
import jakarta.inject.Qualifier;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Objects;

/**
 * Names the bucket of an injected {@link RateLimitBucket}: {@code @Inject @BucketName("report") RateLimitBucket
 * reports}. The deployment fails at startup when a bean's field, constructor or initializer injects a bucket that
 * is not configured, with a message naming the injection point and the properties to set, as for
 * {@link RateLimited#bucket()} (docs/guide.md#deciding-in-code).
 */
@Qualifier
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.PARAMETER, ElementType.METHOD, ElementType.TYPE})
public @interface BucketName {

    /**
     * The bucket's name, as in {@code ratelimiter.buckets.<name>.*}.
     *
     * @return a configured bucket's name
     */
    @Nonbinding
    String value();

    /**
     * The qualifier as a value, to choose a bucket at run time from an {@code @Inject @Any
     * Instance<RateLimitBucket> buckets}: {@code buckets.select(BucketName.Literal.of("report")).get()}. A bucket
     * chosen this way is checked when it is selected (an {@code IllegalArgumentException} naming the properties to
     * set, which the container may wrap), not at startup.
     */
    final class Literal extends AnnotationLiteral<BucketName> implements BucketName {

        private static final long serialVersionUID = 1L;

        /** The bucket's name, as {@link #value()} returns it. */
        private final String value;

        private Literal(String value) {
            this.value = Objects.requireNonNull(value, "value");
        }

        /**
         * The qualifier naming {@code bucketName}.
         *
         * @param bucketName a bucket's name
         * @return {@code @BucketName(bucketName)}
         */
        public static Literal of(String bucketName) {
            return new Literal(bucketName);
        }

        @Override
        public String value() {
            return value;
        }
    }
}
