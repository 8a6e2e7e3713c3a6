package dev.ratelimiter.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;

import java.time.InstantSource;

/**
 * Produces the limiter's time source: the system clock. An application or test replaces it with an
 * {@code @Alternative @Priority(...)} producer of {@link InstantSource}.
 */
@ApplicationScoped
public class ClockProducer {

    @Produces
    @Dependent
    InstantSource clock() {
        return InstantSource.system();
    }
}
