package dev.ratelimiter.cdi;

import dev.ratelimiter.core.LimiterSettings;
import dev.ratelimiter.core.SettingsReader;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;

/**
 * The limiter's settings, read from MicroProfile Config once, when the application starts. The library's own
 * {@code META-INF/microprofile-config.properties} holds the built-in buckets at {@code config_ordinal} 50, below
 * the application's file (100), environment variables (300) and system properties (400).
 */
@ApplicationScoped
public class LimiterConfiguration {

    @Inject
    Config config;

    private LimiterSettings settings;

    @PostConstruct
    void read() {
        settings = SettingsReader.read(new ConfigLookup(config), config.getPropertyNames());
    }

    /** The validated settings. */
    public LimiterSettings settings() {
        return settings;
    }
}
