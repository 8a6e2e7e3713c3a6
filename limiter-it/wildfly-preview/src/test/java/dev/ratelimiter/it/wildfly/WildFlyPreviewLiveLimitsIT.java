package dev.ratelimiter.it.wildfly;

/**
 * {@link WildFlyLiveLimitsIT} on WildFly Preview 39: limits changed through the reload file, read through the
 * server's MicroProfile Config.
 */
class WildFlyPreviewLiveLimitsIT extends WildFlyLiveLimitsIT {
}
