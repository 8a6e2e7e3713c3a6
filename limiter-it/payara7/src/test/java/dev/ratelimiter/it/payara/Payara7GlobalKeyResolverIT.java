package dev.ratelimiter.it.payara;

/**
 * {@link PayaraGlobalKeyResolverIT} on Payara Micro 7: the global filter keyed by the application's resolver, on
 * the instance {@link Payara7StartFailureIT} shares.
 */
class Payara7GlobalKeyResolverIT extends PayaraGlobalKeyResolverIT {
}
