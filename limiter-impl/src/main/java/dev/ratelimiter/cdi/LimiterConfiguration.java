package dev.ratelimiter.cdi;

import dev.ratelimiter.core.LimiterSettings;
import dev.ratelimiter.core.SettingsReader;
import dev.ratelimiter.core.UnknownProperties;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The limiter's settings, read from MicroProfile Config once, when the application starts. The library's own
 * {@code META-INF/microprofile-config.properties} holds the built-in buckets at {@code config_ordinal} 50, below
 * the application's file (100), environment variables (300) and system properties (400). An unknown
 * {@code ratelimiter.*} name in properties form is logged as a warning naming the nearest known property.
 */
@ApplicationScoped
public class LimiterConfiguration {

    private static final System.Logger LOG = System.getLogger(LimiterConfiguration.class.getName());

    @Inject
    Config config;

    private LimiterSettings settings;

    @PostConstruct
    void read() {
        // Copied once: SmallRye Config 3.16's Iterable of names throws on a second iterator().
        List<String> names = new ArrayList<>();
        config.getPropertyNames().forEach(names::add);
        // Before reading, so a typo that fails the start (a bucket left without its limit) is explained first.
        UnknownProperties.warnings(namesAsWritten(names))
                .forEach(warning -> LOG.log(System.Logger.Level.WARNING, warning));
        settings = SettingsReader.read(new ConfigLookup(config), names);
    }

    /**
     * The names some configuration source lists as written, not as the name of an environment variable. SmallRye
     * Config's environment source lists {@code RATELIMITER_BUCKETS_LOGIN_LIMT} also as
     * {@code ratelimiter.buckets.login.limt}; such a name, listed beside its environment form by the same source,
     * is left out, since an environment variable's name cannot be told apart from a typo ({@code _} stands for both
     * {@code .} and {@code -}).
     */
    private List<String> namesAsWritten(List<String> names) {
        Set<String> written = new HashSet<>();
        for (ConfigSource source : config.getConfigSources()) {
            Set<String> listed = source.getPropertyNames();
            for (String name : listed) {
                if (!listed.contains(name.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT))) {
                    written.add(name);
                }
            }
        }
        return names.stream().filter(written::contains).toList();
    }

    /** The validated settings. */
    public LimiterSettings settings() {
        return settings;
    }
}
