package dev.ratelimiter.example;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The example API, under {@code /api} of the root context. */
@ApplicationPath("/api")
public class ExampleApplication extends Application {
}
