package dev.ratelimiter.example;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.ext.Provider;

import java.security.Principal;

/**
 * The example's own authentication, at {@code Priorities.AUTHENTICATION}: a valid {@code Authorization: Bearer}
 * token sets the request's {@link SecurityContext}, so the rate limiter's global filter (one priority later) keys
 * the request by that principal. A missing or unknown token leaves the request anonymous.
 */
@Provider
@ApplicationScoped
@Priority(Priorities.AUTHENTICATION)
public class BearerTokenFilter implements ContainerRequestFilter {

    private static final String BEARER = "Bearer ";

    @Inject
    Tokens tokens;

    @Override
    public void filter(ContainerRequestContext request) {
        String authorization = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return;
        }
        tokens.user(authorization.substring(BEARER.length()).strip()).ifPresent(user -> {
            boolean secure = request.getSecurityContext() != null && request.getSecurityContext().isSecure();
            request.setSecurityContext(new TokenSecurityContext(user, secure));
        });
    }

    private record TokenSecurityContext(String user, boolean secure) implements SecurityContext {
        @Override
        public Principal getUserPrincipal() {
            return () -> user;
        }

        @Override
        public boolean isUserInRole(String role) {
            return false;
        }

        @Override
        public boolean isSecure() {
            return secure;
        }

        @Override
        public String getAuthenticationScheme() {
            return "Bearer";
        }
    }
}
