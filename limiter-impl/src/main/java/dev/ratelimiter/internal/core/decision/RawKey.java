package dev.ratelimiter.internal.core.decision;

import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.internal.core.key.KeyNamespace;

/**
 * A key to count, how to normalize it, and where it comes from: what {@link RateLimitDecider} normalizes and hashes
 * before anything is counted.
 *
 * @param raw           the key as the source gave it
 * @param normalization how it is normalized before hashing
 * @param namespace     its source's namespace, hashed with it, so keys of different sources never meet
 */
public record RawKey(CharSequence raw, KeyNormalization normalization, KeyNamespace namespace) {
}
