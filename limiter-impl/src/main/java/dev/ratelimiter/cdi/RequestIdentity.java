package dev.ratelimiter.cdi;

import jakarta.enterprise.context.RequestScoped;

import java.util.Optional;

/**
 * Who is asking, resolved once per HTTP request by the JAX-RS filter and read by the {@code @RateLimited}
 * interceptor: the principal's name when authenticated, and the client address (see
 * {@code ClientAddressResolver}).
 */
@RequestScoped
public class RequestIdentity {

    private String principalName;
    private String clientAddress;

    /** Records the request's identity; {@code principalName} is {@code null} or blank for anonymous requests. */
    public void resolve(String principalName, String clientAddress) {
        this.principalName = principalName == null || principalName.isBlank() ? null : principalName;
        this.clientAddress = clientAddress;
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
