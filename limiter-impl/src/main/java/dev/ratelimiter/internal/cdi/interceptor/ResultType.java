package dev.ratelimiter.internal.cdi.interceptor;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * How a {@code @RateLimited} method delivers its result, which decides how a refusal reaches the caller and when
 * the attempt is counted (docs/guide.md#adding-it-to-an-application, its table of return types).
 */
public enum ResultType {

    /** Any other type: counted at the call; a refusal is thrown. */
    PLAIN,

    /**
     * {@code CompletionStage} or {@code CompletableFuture}: counted at the call; a refusal is a stage completed
     * exceptionally with it.
     */
    COMPLETION_STAGE,

    /** Mutiny {@code Uni}: counted at each subscription; a refusal is a failed {@code Uni}. */
    UNI,

    /** Mutiny {@code Multi}: counted at each subscription; a refusal is a failed {@code Multi}. */
    MULTI;

    /**
     * The result type of {@code method}. Mutiny's types are compared by name, so no Mutiny class is loaded where
     * Mutiny is absent.
     */
    public static ResultType of(Method method) {
        Class<?> type = method.getReturnType();
        if (type == CompletionStage.class || type == CompletableFuture.class) {
            return COMPLETION_STAGE;
        }
        return switch (type.getName()) {
            case "io.smallrye.mutiny.Uni" -> UNI;
            case "io.smallrye.mutiny.Multi" -> MULTI;
            default -> PLAIN;
        };
    }
}
