package dev.ratelimiter.it.payara;

/**
 * {@link PayaraStartFailureIT} on Payara Micro 7: bad properties, an unresolved secret and a misconfigured binding
 * each fail their own deployment with the message that names them.
 */
class Payara7StartFailureIT extends PayaraStartFailureIT {
}
