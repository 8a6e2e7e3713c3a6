package dev.ratelimiter.internal.cdi.call;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.RequestScoped;

import java.util.Optional;

/**
 * Who is asking, resolved once per HTTP request by the JAX-RS filter and read by the {@code @RateLimited}
 * interceptor: the principal's name when authenticated, and the client address (see
 * {@code ClientAddressResolver}), and the request's headers and parameters a {@code RateLimitKeyResolver} may read;
 * and the verdicts given during the request ({@link AppliedLimits}), for the RateLimit headers. The library's one
 * request-scoped bean: on Payara, creating one costs a few microseconds per request, more than the decision.
 */
@RequestScoped
public class RequestIdentity {

    private String principalName;
    private String clientAddress;
    private RequestAttributes attributes = RequestAttributes.NONE;
    private final AppliedLimits applied = new AppliedLimits();

    /** Records the request's identity; {@code principalName} is {@code null} or blank for anonymous requests. */
    public void resolve(String principalName, String clientAddress) {
        resolve(principalName, clientAddress, RequestAttributes.NONE);
    }

    /**
     * Records the request's identity and what a key resolver may read of it; {@code principalName} is {@code null}
     * or blank for anonymous requests.
     *
     * @return the handle of this request's verdicts ({@link AppliedLimits#handle()}), so the filter needs no second
     *         call of this bean's proxy
     */
    public AppliedLimits.Handle resolve(String principalName, String clientAddress, RequestAttributes attributes) {
        this.principalName = principalName == null || principalName.isBlank() ? null : principalName;
        this.clientAddress = clientAddress;
        this.attributes = attributes;
        return applied.handle();
    }

    /**
     * The verdicts given during this request: the object itself, not a proxy, so it may be used from a thread where
     * the request context is not active.
     */
    public AppliedLimits applied() {
        return applied;
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

    /** The request ended: what it left to its end runs ({@link AppliedLimits#atEnd}). */
    @PreDestroy
    void ended() {
        applied.end();
    }
}
