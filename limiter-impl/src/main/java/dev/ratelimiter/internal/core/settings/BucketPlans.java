package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Bucket;

import java.util.Map;
import java.util.Optional;

/**
 * A bucket's plans (docs/plans.md): {@code ratelimiter.buckets.<name>.plans} and each plan's limits, and the
 * {@code ratelimiter.buckets.<name>.plan-resolver} that chooses among them.
 *
 * @param plans    each declared plan's bucket ({@link Bucket#withPlan}), by plan name; empty when none is declared
 * @param resolver the plan resolver's {@code @Named} name or bean class name, unchecked here (the CDI layer finds
 *                 it); empty when configuration names none
 */
public record BucketPlans(Map<String, Bucket> plans, Optional<String> resolver) {

    /** A bucket without plans nor resolver in configuration. */
    public static final BucketPlans NONE = new BucketPlans(Map.of(), Optional.empty());

    public BucketPlans {
        plans = Map.copyOf(plans);
    }

    /** {@return the bucket under the declared plan of that name, empty if the bucket declares none such} */
    public Optional<Bucket> plan(String name) {
        return Optional.ofNullable(plans.get(name));
    }
}
