package dev.ratelimiter.example;

import jakarta.json.Json;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** A rejected import is the client's error: 422 with a problem (RFC 9457) saying which id was refused. */
@Provider
public class ImportRejectedMapper implements ExceptionMapper<ImportRejectedException> {

    @Override
    public Response toResponse(ImportRejectedException exception) {
        return Response.status(422)
                .type("application/problem+json")
                .entity(Json.createObjectBuilder()
                        .add("type", "about:blank")
                        .add("title", "Unprocessable Content")
                        .add("status", 422)
                        .add("detail", exception.getMessage() + "; nothing was imported")
                        .build().toString())
                .build();
    }
}
