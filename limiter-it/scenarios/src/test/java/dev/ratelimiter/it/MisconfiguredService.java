package dev.ratelimiter.it;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;

/** A bean an application got wrong twice: an unknown bucket, and a key that is not a string. */
@ApplicationScoped
public class MisconfiguredService {

    @RateLimited(bucket = "no-such-bucket")
    public void search(String query) {
    }

    @RateLimited(bucket = "login")
    public void lookup(@RateLimitKey long accountId) {
    }
}
