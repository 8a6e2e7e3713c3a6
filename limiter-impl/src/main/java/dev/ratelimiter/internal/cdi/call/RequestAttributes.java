package dev.ratelimiter.internal.cdi.call;

import java.util.Optional;

/**
 * The parts of the HTTP request a {@code RateLimitKeyResolver} may read, recorded by the global filter in
 * {@link RequestIdentity} so the CDI layer needs no JAX-RS type (the JAX-RS side is
 * {@code jaxrs.JaxrsRequestAttributes}).
 */
public interface RequestAttributes {

    /** Outside an HTTP request: every value is empty. */
    RequestAttributes NONE = new RequestAttributes() {
        @Override
        public Optional<String> header(String name) {
            return Optional.empty();
        }

        @Override
        public Optional<String> pathParameter(String name) {
            return Optional.empty();
        }

        @Override
        public Optional<String> queryParameter(String name) {
            return Optional.empty();
        }
    };

    /** {@return a header's first value, the name in any case; empty when absent} */
    Optional<String> header(String name);

    /** {@return a path parameter of the matched resource, decoded; empty when absent} */
    Optional<String> pathParameter(String name);

    /** {@return a query parameter's first value, decoded; empty when absent} */
    Optional<String> queryParameter(String name);
}
