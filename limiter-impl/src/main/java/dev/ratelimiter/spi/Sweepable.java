package dev.ratelimiter.spi;

import dev.ratelimiter.RateLimiter;

/**
 * A store or limiter that keeps counters which outlive their window until they are swept: a store concern, so in
 * the SPI ({@link StoreContext#sweep}), not the application API.
 */
public interface Sweepable {

    /**
     * Deletes every counter whose window has ended ({@code endsAt <= now}, the instant at which
     * {@link RateLimiter#consume} would open a new window). Never throws for a backend failure: it then returns
     * what it deleted before the failure.
     *
     * @return how many counters were deleted
     */
    long sweep();
}
