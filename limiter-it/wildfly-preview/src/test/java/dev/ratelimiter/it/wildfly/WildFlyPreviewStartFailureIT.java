package dev.ratelimiter.it.wildfly;

/**
 * {@link WildFlyStartFailureIT} on WildFly Preview 39: bad properties, an unresolved secret and misconfigured
 * bindings each fail their deployment with the library's message in the server's log and no "ready".
 */
class WildFlyPreviewStartFailureIT extends WildFlyStartFailureIT {
}
