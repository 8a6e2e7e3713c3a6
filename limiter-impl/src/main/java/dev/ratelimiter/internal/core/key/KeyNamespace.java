package dev.ratelimiter.internal.core.key;

/**
 * Where a key comes from, hashed with it so that keys of different sources never share a counter
 * (docs/guide.md#keys-and-privacy): a user whose login name is {@code 127.0.0.1} and an anonymous caller from
 * 127.0.0.1 count apart in one bucket. Every key an application names itself (a {@code @RateLimitKey} parameter, a
 * resolver's key, {@code RateLimits.consume} and {@code reset}) is in one namespace, so a reset by login clears the
 * counter the annotation made; each key the library derives from the request is in its source's own.
 *
 * <p>The hash's input is the namespace's {@link #prefix()} followed by the normalized key: the prefixes are distinct
 * and of one length, so no two (namespace, key) pairs give one input. (The in-memory counters' hash puts two NUL
 * characters between them, so the prefix fills one 8-byte word of SipHash: {@code InProcessKeyHasher}.)
 */
public enum KeyNamespace {

    /** A key the application names: a parameter, a resolver's, the {@code RateLimits} facade's. */
    APPLICATION("a:"),
    /** The authenticated principal's name. */
    PRINCIPAL("p:"),
    /** The client address, as the global filter resolves it. */
    CLIENT_ADDRESS("c:");

    private final String prefix;

    KeyNamespace(String prefix) {
        this.prefix = prefix;
    }

    /** {@return what precedes the key in the hash's input: two ASCII characters} */
    public String prefix() {
        return prefix;
    }
}
