package dev.ratelimiter.it.wildfly;

/**
 * {@link WildFlyPostgresExampleApiIT} on WildFly Preview 39: the example API's scenarios, every one, on PostgreSQL
 * through the server's {@code jta="false"} datasource (the same configure.cli), and the limits in WildFly Preview's
 * {@code /openapi}. The shared store this module runs the example on: PostgreSQL rather than Valkey, since this
 * class alone of WildFly's checks the OpenAPI document, and Payara Micro 7 already runs the example on Valkey on
 * Jakarta EE 11.
 */
class WildFlyPreviewPostgresExampleApiIT extends WildFlyPostgresExampleApiIT {
}
