package dev.ratelimiter;

/**
 * Gives a {@link RateLimited} bucket, or the global filter, its key from anywhere in the request: a tenant header,
 * a path parameter, an API key. Implement it as a CDI bean (usually {@code @ApplicationScoped}; {@code @Named} to
 * name it by {@link RateLimited#resolverName()} or {@code ratelimiter.api.key-resolver}) and name it from
 * {@link RateLimited#resolver()}; see docs/guide.md#keys-from-anywhere.
 *
 * <p>When it runs: for the interceptor, on the calling thread when the method is called (before any bucket counts,
 * for a {@code Uni} at the call, not at subscription), so after the application's authentication and with the
 * request context active; for the global filter ({@code ratelimiter.api.key-resolver}), in the filter, after the
 * application's authentication filter ({@code Priorities.AUTHENTICATION}). It must not block on a network call
 * where the server runs it on an event loop (a Quarkus REST non-blocking endpoint).
 *
 * <p>The key it returns is normalized by {@link #normalization()} and hashed like any other key (HMAC-SHA-256 with
 * {@code ratelimiter.key-secret}), so an API key is never stored or logged in clear. A {@code null} or blank key,
 * or an exception, means "no key": the bucket's {@link RateLimited#fallback()} sources are tried, else the call is
 * refused with {@link RateLimitKeyMissingException} (HTTP 400); the global filter falls back to its own key (the
 * principal, else the client address). Such a failure is logged once per resolver, without the key or the
 * exception's message.
 */
public interface RateLimitKeyResolver {

    /**
     * The key of this call.
     *
     * @param context the call: bucket, method and arguments, principal, client address, request headers and
     *                parameters
     * @return the raw key, or {@code null} (or blank) when the call has none
     */
    String resolve(RateLimitContext context);

    /** {@return how the resolved key is normalized before it is hashed; {@link KeyNormalization#NONE} by default} */
    default KeyNormalization normalization() {
        return KeyNormalization.NONE;
    }
}
