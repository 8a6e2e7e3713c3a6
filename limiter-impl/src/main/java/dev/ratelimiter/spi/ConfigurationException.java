package dev.ratelimiter.spi;

import java.util.List;

/**
 * The limiter's configuration or its use in the application is invalid. Thrown at startup, so the deployment
 * fails; the message lists every problem found, each naming the property or the method to change.
 */
public class ConfigurationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    /** @param problems one line each, naming the property or the method */
    public ConfigurationException(List<String> problems) {
        super("Rate limiter configuration is invalid:\n  - " + String.join("\n  - ", problems));
        this.problems = List.copyOf(problems);
    }

    /** Each problem on its own. */
    public List<String> problems() {
        return problems;
    }
}
