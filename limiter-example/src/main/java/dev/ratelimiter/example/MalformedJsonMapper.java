package dev.ratelimiter.example;

import jakarta.json.bind.JsonbException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** A JSON-B failure that the server did not wrap (Open Liberty): the same 400 as {@link MalformedBodyMapper}. */
@Provider
public class MalformedJsonMapper implements ExceptionMapper<JsonbException> {

    @Override
    public Response toResponse(JsonbException exception) {
        return MalformedBodyMapper.badRequest();
    }
}
