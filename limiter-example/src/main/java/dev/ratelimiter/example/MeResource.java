package dev.ratelimiter.example;

import jakarta.enterprise.context.RequestScoped;
import jakarta.json.Json;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;

/** {@code GET /api/me}: the caller's name; needs a bearer token from {@code POST /api/login}. */
@Path("me")
@RequestScoped
public class MeResource {

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response me(@Context SecurityContext security) {
        if (security.getUserPrincipal() == null) {
            return Response.status(Response.Status.UNAUTHORIZED).header("WWW-Authenticate", "Bearer").build();
        }
        return Response.ok(Json.createObjectBuilder().add("user", security.getUserPrincipal().getName()).build())
                .build();
    }
}
