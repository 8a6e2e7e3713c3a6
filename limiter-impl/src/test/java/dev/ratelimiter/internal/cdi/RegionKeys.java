package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitContext;
import dev.ratelimiter.RateLimitKeyResolver;
import jakarta.enterprise.context.ApplicationScoped;

/** A resolver type that two beans implement, so naming it by type is ambiguous. */
public interface RegionKeys extends RateLimitKeyResolver {

    /** The first region resolver. */
    @ApplicationScoped
    class Europe implements RegionKeys {
        @Override
        public String resolve(RateLimitContext context) {
            return "eu";
        }
    }

    /** The second region resolver. */
    @ApplicationScoped
    class America implements RegionKeys {
        @Override
        public String resolve(RateLimitContext context) {
            return "us";
        }
    }
}
