package dev.ratelimiter.internal.cdi.call;

import dev.ratelimiter.RateLimitContext;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;

/**
 * The {@link RateLimitContext} a key resolver is given: what the interceptor or the global filter knows of the call.
 *
 * @param bucket        the bucket whose key is asked for
 * @param method        the intercepted method; empty for the global filter
 * @param arguments     the method's arguments (may hold {@code null}s); empty for the global filter
 * @param principalName the principal's name, if authenticated
 * @param clientAddress the client address key, if in an HTTP request the filter saw
 * @param attributes    the request's headers and parameters; {@link RequestAttributes#NONE} outside a request
 */
public record CallContext(String bucket, Optional<Method> method, List<Object> arguments, Optional<String> principalName,
                   Optional<String> clientAddress, RequestAttributes attributes) implements RateLimitContext {

    @Override
    public Optional<String> header(String name) {
        return attributes.header(name);
    }

    @Override
    public Optional<String> pathParameter(String name) {
        return attributes.pathParameter(name);
    }

    @Override
    public Optional<String> queryParameter(String name) {
        return attributes.queryParameter(name);
    }
}
