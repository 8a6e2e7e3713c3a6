package dev.ratelimiter.it.payara;

/**
 * {@link PayaraRedeployIT} on Payara Micro 7 (Weld 6): redeploys with the library's own PostgreSQL pool leave no
 * class loader, thread or connection behind.
 */
class Payara7RedeployIT extends PayaraRedeployIT {
}
