package dev.ratelimiter.example;

import dev.ratelimiter.RateLimitedBy;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * {@code POST /api/login} with {@code {"login": "...", "password": "..."}}: 200 with a bearer token, 401 for wrong
 * credentials, 429 after 5 attempts for one account in 15 minutes or 50 failed ones from one address. The limits are
 * {@link LoginService}'s; {@code @RateLimitedBy} shows them on this operation in the OpenAPI document
 * (docs/openapi.md#limits-counted-in-a-bean-the-resource-calls).
 */
@Path("login")
@RequestScoped
public class LoginResource {

    @Inject
    LoginService logins;

    @POST
    @RateLimitedBy({"login-address", "login"})
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response login(LoginRequest request) {
        if (request == null) {
            return Response.status(Response.Status.BAD_REQUEST).build();
        }
        try {
            return Response.ok(new LoginResponse(logins.login(request.login(), request.password()))).build();
        } catch (InvalidCredentialsException e) {
            return Response.status(Response.Status.UNAUTHORIZED).header("WWW-Authenticate", "Bearer").build();
        }
    }
}
