package dev.ratelimiter.internal.cdi.config;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.settings.LimiterSettings;
import dev.ratelimiter.internal.core.settings.PropertyTable;
import dev.ratelimiter.internal.core.settings.SettingsReader;
import dev.ratelimiter.internal.core.settings.SettingsUpdate;
import dev.ratelimiter.internal.core.settings.StoreProviderRegistry;
import dev.ratelimiter.internal.core.settings.UnknownProperties;
import dev.ratelimiter.spi.ConfigurationException;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The limiter's settings, read from MicroProfile Config when the application starts, and the buckets' settings again
 * at each reload (docs/live-limits.md), with the file {@code ratelimiter.reload.file} names above every source
 * ({@link ReloadFile}). The library's own
 * {@code META-INF/microprofile-config.properties} holds the built-in buckets at {@code config_ordinal} 50, below
 * the application's file (100), environment variables (300) and system properties (400). An unknown
 * {@code ratelimiter.*} name in properties form is logged as a warning naming the nearest known property.
 */
@ApplicationScoped
public class LimiterConfiguration {

    private static final System.Logger LOG = System.getLogger(LimiterConfiguration.class.getName());

    @Inject
    Config config;

    private volatile LimiterSettings settings;
    private ConfigLookup lookup;

    @PostConstruct
    void read() {
        lookup = new ConfigLookup(config);
        ReloadFile file = reloadFile().orElse(null);
        List<String> names = file == null ? namesAsWritten() : file.names(namesAsWritten());
        // Before reading, so a typo that fails the start (a bucket left without its limit) is explained first.
        UnknownProperties.warnings(names).forEach(warning -> LOG.log(System.Logger.Level.WARNING, warning));
        settings = SettingsReader.read(file == null ? lookup : file.over(lookup), names);
    }

    /**
     * Reads the settings again and applies what passes the startup's checks (docs/live-limits.md): each bucket's new
     * settings, or its old ones where the new fail. Never throws for a bad value.
     *
     * @param costs      each bucket's largest static cost
     * @param algorithms the algorithms the store decides
     * @return what was applied, what changed, and what was kept out
     */
    public synchronized SettingsUpdate reload(Map<String, SettingsUpdate.StaticCost> costs,
                                       Set<Algorithm> algorithms) {
        LimiterSettings current = settings;
        SettingsReader.Reading read;
        try {
            ReloadFile file = reloadFile().orElse(null);
            List<String> names = file == null ? namesAsWritten() : file.names(namesAsWritten());
            read = SettingsReader.reread(file == null ? lookup : file.over(lookup), names,
                    StoreProviderRegistry.load());
        } catch (ConfigurationException e) {
            return new SettingsUpdate(current, Set.of(), e.problems());
        }
        SettingsUpdate update = SettingsUpdate.of(current, read, costs, algorithms);
        settings = update.settings();
        return update;
    }

    /**
     * The file {@code ratelimiter.reload.file} names, read now; empty when unset.
     *
     * @throws ConfigurationException naming the property, if the file cannot be read
     */
    private Optional<ReloadFile> reloadFile() {
        Optional<String> path = lookup.apply(PropertyTable.RELOAD_FILE.fullName()).map(String::strip)
                .filter(value -> !value.isEmpty());
        return path.map(ReloadFile::read);
    }

    /**
     * Every property name as a configuration source lists it, sorted, without the names some sources list beside an
     * environment variable. SmallRye Config's environment source lists {@code RATELIMITER_BUCKETS_LOGIN_LIMT} also
     * as {@code ratelimiter.buckets.login.limt} (and {@code _DEV_RATELIMITER_...} as {@code %dev.ratelimiter...});
     * such a name is left out, since an environment variable's name cannot be told apart from a typo ({@code _}
     * stands for both {@code .} and {@code -}), and the reader finds the bucket from the variable's own name.
     *
     * <p>Taken from the sources, not from {@link Config#getPropertyNames()}: there SmallRye Config lists a name
     * under the active profile without its profile ({@code %dev.x} as {@code x}), so a typo under the active
     * profile would go unseen; the reader asks the Config which profiled names apply
     * (docs/guide.md#configuration-profiles).
     */
    private List<String> namesAsWritten() {
        Set<String> written = new TreeSet<>();
        for (ConfigSource source : config.getConfigSources()) {
            Set<String> listed = source.getPropertyNames();
            for (String name : listed) {
                if (name.equals(environmentForm(name)) || !listed.contains(environmentForm(name))) {
                    written.add(name);
                }
            }
        }
        return List.copyOf(written);
    }

    private static String environmentForm(String name) {
        return name.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
    }

    /**
     * The Config the settings were read from, for a store's subtree ({@code ratelimiter.<name>.*}). The same
     * instance, not one injected later: a bean first used on a request thread while the server is still deploying
     * (Payara answers readiness probes then) may be handed the Config of another class loader, without the
     * application's {@code microprofile-config.properties}.
     */
    public Function<String, Optional<String>> lookup() {
        return lookup;
    }

    /** The validated settings. */
    public LimiterSettings settings() {
        return settings;
    }
}
