package dev.ratelimiter.it.wildfly;

/**
 * {@link WildFlyListedApplicationIT} on WildFly Preview 39: the example API's scenarios with an {@code Application}
 * whose {@code getClasses()} lists the library's feature and turns RESTEasy's scanning off.
 */
class WildFlyPreviewListedApplicationIT extends WildFlyListedApplicationIT {
}
