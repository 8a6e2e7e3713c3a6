package dev.ratelimiter.it;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * A bean an application got wrong four times: an unknown bucket, a key that is not a string, a resolver no bean
 * answers to, and two limits, one asking for a key parameter the method does not have.
 */
@ApplicationScoped
public class MisconfiguredService {

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
}
