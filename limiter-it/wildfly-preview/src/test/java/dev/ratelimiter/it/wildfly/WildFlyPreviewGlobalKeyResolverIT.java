package dev.ratelimiter.it.wildfly;

/**
 * {@link WildFlyGlobalKeyResolverIT} on WildFly Preview 39: the global filter keyed by the example's {@code tenant}
 * resolver.
 */
class WildFlyPreviewGlobalKeyResolverIT extends WildFlyGlobalKeyResolverIT {
}
