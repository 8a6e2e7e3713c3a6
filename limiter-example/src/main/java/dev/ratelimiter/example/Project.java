package dev.ratelimiter.example;

import java.util.List;

/** A project of the demo catalogue. */
public record Project(String id, String name) {

    /** The demo catalogue, which {@code /api/projects} lists and {@code /api/search} searches. */
    public static final List<Project> CATALOGUE =
            List.of(new Project("jrl", "Jakarta Rate Limiter"), new Project("demo", "Demo project"));
}
