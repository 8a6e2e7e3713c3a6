package dev.ratelimiter.it.wildfly;

/**
 * {@link WildFlyFallbackCarryIT} on WildFly Preview 39: what Valkey (a {@code redis-server} of the test's own, killed
 * in between) counted before the outage carries into the fallback.
 */
class WildFlyPreviewFallbackCarryIT extends WildFlyFallbackCarryIT {
}
