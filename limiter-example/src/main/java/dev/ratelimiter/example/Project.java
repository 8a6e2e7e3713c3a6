package dev.ratelimiter.example;

/** A project of the demo catalogue. */
public record Project(String id, String name) {
}
