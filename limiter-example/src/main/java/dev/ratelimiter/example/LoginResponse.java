package dev.ratelimiter.example;

/** A successful login: the bearer token for {@code Authorization: Bearer <token>}. */
public record LoginResponse(String token) {
}
