package dev.ratelimiter.example;

/** The body of {@code POST /api/completions}: the prompt for the model. */
public record CompletionRequest(String prompt) {
}
