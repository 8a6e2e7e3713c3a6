package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;

/** Names a bucket nobody configured. */
@ApplicationScoped
public class MisconfiguredBean {

    @RateLimited(bucket = "unknown-bucket")
    public void call() {
    }
}
