package dev.ratelimiter.internal.cdi;

import jakarta.enterprise.context.RequestScoped;

import java.util.Optional;

/**
 * Who is asking, resolved once per HTTP request by the JAX-RS filter and read by the {@code @RateLimited}
 * interceptor: the principal's name when authenticated, and the client address (see
 * {@code ClientAddressResolver}), and the request's headers and parameters a {@code RateLimitKeyResolver} may read.
 */
@RequestScoped
public class RequestIdentity {

    private String principalName;
    private String clientAddress;
    private RequestAttributes attributes = RequestAttributes.NONE;

    /** Records the request's identity; {@code principalName} is {@code null} or blank for anonymous requests. */
    public void resolve(String principalName, String clientAddress) {
        resolve(principalName, clientAddress, RequestAttributes.NONE);
    }

    /**
     * Records the request's identity and what a key resolver may read of it; {@code principalName} is {@code null}
     * or blank for anonymous requests.
     */
    public void resolve(String principalName, String clientAddress, RequestAttributes attributes) {
        this.principalName = principalName == null || principalName.isBlank() ? null : principalName;
        this.clientAddress = clientAddress;
        this.attributes = attributes;
    }

    /** The request's headers and parameters; {@link RequestAttributes#NONE} before the filter ran. */
    public RequestAttributes attributes() {
        return attributes;
    }

    /** The authenticated principal's name, if any. */
    public Optional<String> principalName() {
        return Optional.ofNullable(principalName);
    }

    /** The client address key, once the filter has run. */
    public Optional<String> clientAddress() {
        return Optional.ofNullable(clientAddress);
    }
}
