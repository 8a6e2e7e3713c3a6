package dev.ratelimiter;

/**
 * How a raw key is normalized before it is hashed and counted.
 */
public enum KeyNormalization {
    /** The key is used as given. */
    NONE,
    /**
     * For account names and e-mail addresses: Unicode NFKC, then {@link String#strip()}, then
     * {@code toLowerCase(Locale.ROOT)}, so {@code " ADMIN@X.COM"} and {@code "admin@x.com"} share one counter
     * whatever the server's default locale.
     */
    LOGIN
}
