package dev.ratelimiter.it.payara;

/**
 * {@link PayaraLiveLimitsIT} on Payara Micro 7: limits changed through the reload file, on the instance {@link
 * Payara7ExampleApiIT} shares.
 */
class Payara7LiveLimitsIT extends PayaraLiveLimitsIT {
}
