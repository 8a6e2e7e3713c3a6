package dev.ratelimiter.it.wildfly;

/**
 * {@link WildFlyRedeployIT} on WildFly Preview 39 (Weld 6): redeploys of the example with the library's own
 * PostgreSQL pool leave no class loader, thread or connection behind, and the server's Micrometer registry keeps only
 * the last deployment's meters.
 */
class WildFlyPreviewRedeployIT extends WildFlyRedeployIT {
}
