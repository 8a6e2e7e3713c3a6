package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;

/** Beans whose resolvers are not exactly one bean. */
final class ResolverMisconfiguredBeans {

    private ResolverMisconfiguredBeans() {
    }

    /** Names a resolver by a type two beans have. */
    @ApplicationScoped
    public static class Ambiguous {
        @RateLimited(bucket = "search", resolver = RegionKeys.class)
        public void call() {
        }
    }

    /** Names a resolver by a name no bean has. */
    @ApplicationScoped
    public static class Unknown {
        @RateLimited(bucket = "search", resolverName = "no-such-resolver")
        public void call() {
        }
    }
}
