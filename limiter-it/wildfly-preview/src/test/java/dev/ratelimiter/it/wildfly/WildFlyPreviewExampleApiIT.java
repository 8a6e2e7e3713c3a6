package dev.ratelimiter.it.wildfly;

/**
 * {@link WildFlyExampleApiIT} on WildFly Preview 39 (Jakarta EE 11, RESTEasy 7): the example API's scenarios, every
 * one but {@link #WAITS_ELSEWHERE}'s, in memory with a configuration profile active; readiness and metrics on the
 * management interface, where the same {@code configure.cli} as on WildFly puts Micrometer's Prometheus registry.
 */
class WildFlyPreviewExampleApiIT extends WildFlyExampleApiIT {
}
