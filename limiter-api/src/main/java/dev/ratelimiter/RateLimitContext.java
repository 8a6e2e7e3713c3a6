package dev.ratelimiter;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;

/**
 * What a {@link RateLimitKeyResolver} may read about the call being limited. Values read from the HTTP request are empty outside
 * one (a {@code @RateLimited} method called by a scheduler, say).
 */
public interface RateLimitContext {

    /** {@return the bucket whose key is asked for} */
    String bucket();

    /** {@return the intercepted method; empty for the global filter} */
    Optional<Method> method();

    /** {@return the method's arguments, in order; empty for the global filter} */
    List<Object> arguments();

    /** {@return the authenticated principal's name; empty for an anonymous request or outside one} */
    Optional<String> principalName();

    /** {@return the client address as the limiter keys it (trusted proxies applied, IPv6 by prefix)} */
    Optional<String> clientAddress();

    /**
     * The first value of a request header.
     *
     * @param name the header's name, in any case (RFC 9110 §5.1)
     * @return its first value; empty when absent or outside an HTTP request
     */
    Optional<String> header(String name);

    /**
     * A path parameter of the matched resource method, decoded.
     *
     * @param name the template parameter's name, as in {@code @Path("{tenant}")}
     * @return its value; empty when absent or outside an HTTP request
     */
    Optional<String> pathParameter(String name);

    /**
     * The first value of a query parameter, decoded.
     *
     * @param name the parameter's name
     * @return its first value; empty when absent or outside an HTTP request
     */
    Optional<String> queryParameter(String name);
}
