package dev.ratelimiter.example;

/** The body of {@code POST /api/login}. */
public record LoginRequest(String login, String password) {
}
