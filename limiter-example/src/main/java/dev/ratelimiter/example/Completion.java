package dev.ratelimiter.example;

/**
 * A model's answer to {@code POST /api/completions}.
 *
 * @param completion the text
 * @param tokens     the tokens the model says it used, which the tenant's daily budget is charged
 */
public record Completion(String completion, long tokens) {
}
