package dev.ratelimiter.example;

import jakarta.json.Json;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * A request body that cannot be read (malformed JSON, wrong shape) is the client's error: 400 with a short
 * problem (RFC 9457), never a 500 with the parser's stack trace. The attempt was already counted by the global
 * filter, and this response carries the RateLimit headers like any other. Jersey (Payara) wraps the JSON-B
 * failure in a {@link ProcessingException}; RESTEasy (Open Liberty) lets the {@code JsonbException} through, which
 * {@link MalformedJsonMapper} maps the same way.
 */
@Provider
public class MalformedBodyMapper implements ExceptionMapper<ProcessingException> {

    @Override
    public Response toResponse(ProcessingException exception) {
        return badRequest();
    }

    /** The 400 problem for a body that cannot be read. */
    static Response badRequest() {
        return Response.status(Response.Status.BAD_REQUEST)
                .type("application/problem+json")
                .entity(Json.createObjectBuilder()
                        .add("type", "about:blank")
                        .add("title", "Bad Request")
                        .add("status", 400)
                        .add("detail", "The request body is not the JSON this endpoint expects.")
                        .build().toString())
                .build();
    }
}
