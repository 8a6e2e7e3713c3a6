package dev.ratelimiter.it;

import dev.ratelimiter.BucketName;
import dev.ratelimiter.RateLimitBucket;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * A bean an application got wrong six times: an unknown bucket, a key that is not a string, a resolver no bean
 * answers to, two limits, one asking for a key parameter the method does not have, an injected bucket that is not
 * configured, and a binding on a static method (intercepted by Quarkus only). A private method's binding is not
 * here: Quarkus refuses it at build time, before the library's check.
 */
@ApplicationScoped
public class MisconfiguredService {

    @Inject
    @BucketName("no-such-report")
    RateLimitBucket reports;

    @RateLimited(bucket = "no-such-bucket")
    public void search(String query) {
    }

    @RateLimited(bucket = "login")
    public void lookup(@RateLimitKey long accountId) {
    }

    @RateLimited(bucket = "login", resolverName = "no-such-resolver")
    public void byTenant() {
    }

    @RateLimited(bucket = "login-address", key = RateLimited.Key.CLIENT_ADDRESS)
    @RateLimited(bucket = "login", key = RateLimited.Key.PARAMETER)
    public void spray(String login) {
    }

    @RateLimited(bucket = "login")
    public static void audit(@RateLimitKey String login) {
    }
}
