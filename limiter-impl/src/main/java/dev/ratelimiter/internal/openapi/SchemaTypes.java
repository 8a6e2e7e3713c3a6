package dev.ratelimiter.internal.openapi;

import org.eclipse.microprofile.openapi.models.media.Schema;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;

/**
 * Sets a schema's type on MicroProfile OpenAPI 3.1 and 4.0 alike: 3.1's {@code Schema.setType(SchemaType)} became
 * {@code setType(List<SchemaType>)} in 4.0 (JSON Schema 2020-12 allows several types), so neither signature can be
 * compiled against and run on both. The method is found once by name, and called with the form its parameter
 * takes. Every other model method the library calls has the same signature in both versions (docs/openapi.md).
 */
final class SchemaTypes {

    private static final Method SET_TYPE = setType();

    private SchemaTypes() {
    }

    /**
     * The schema with its type set to {@code type}.
     *
     * @throws IllegalStateException if the model's {@code setType} cannot be called (a MicroProfile OpenAPI
     *                               version whose {@code Schema} has neither form)
     */
    static Schema typed(Schema schema, Schema.SchemaType type) {
        try {
            SET_TYPE.invoke(schema, SET_TYPE.getParameterTypes()[0] == List.class ? List.of(type) : type);
            return schema;
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("Schema.setType of MicroProfile OpenAPI cannot be called: " + e, e);
        }
    }

    private static Method setType() {
        for (Method method : Schema.class.getMethods()) {
            if (method.getName().equals("setType") && method.getParameterCount() == 1
                    && (method.getParameterTypes()[0] == List.class
                    || method.getParameterTypes()[0] == Schema.SchemaType.class)) {
                return method;
            }
        }
        throw new IllegalStateException("MicroProfile OpenAPI's Schema has no setType(SchemaType) nor "
                + "setType(List<SchemaType>)");
    }
}
