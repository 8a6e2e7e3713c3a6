package dev.ratelimiter.internal.cdi.config;

import dev.ratelimiter.internal.core.settings.PropertyTable;
import dev.ratelimiter.spi.ConfigurationException;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The properties file {@code ratelimiter.reload.file} names (docs/live-limits.md): the one source of the library's
 * settings that can change while the application runs on every server, read whole at startup and at each reload,
 * and above every other source (a value in it wins), so an operator's change applies without a redeploy. Its
 * {@code ratelimiter.*} properties are read in properties form only ({@code java.util.Properties}, UTF-8).
 */
final class ReloadFile {

    private final Map<String, String> values;

    private ReloadFile(Map<String, String> values) {
        this.values = values;
    }

    /**
     * Reads the file now.
     *
     * @param path the file's path, as {@code ratelimiter.reload.file} gives it
     * @return its {@code ratelimiter.*} properties
     * @throws ConfigurationException naming the property and the file, if it cannot be read
     */
    static ReloadFile read(String path) {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(Path.of(path), StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException | IllegalArgumentException e) { // InvalidPathException too
            throw new ConfigurationException(List.of(PropertyTable.RELOAD_FILE.fullName() + ": cannot read '" + path
                    + "' (" + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage())
                    + "); the settings stay as they were. Create the file, or unset the property"));
        }
        Map<String, String> values = new TreeMap<>();
        for (String name : properties.stringPropertyNames()) {
            String value = properties.getProperty(name).strip();
            if (name.startsWith(PropertyTable.PREFIX) && !value.isEmpty()) {
                values.put(name, value);
            }
        }
        return new ReloadFile(values);
    }

    /** {@return the configuration's property names and the file's, for discovering buckets} */
    List<String> names(List<String> configured) {
        TreeSet<String> names = new TreeSet<>(configured);
        names.addAll(values.keySet());
        return List.copyOf(names);
    }

    /** {@return a look-up that answers from the file first, then from {@code below}} */
    Function<String, Optional<String>> over(Function<String, Optional<String>> below) {
        return name -> {
            String value = values.get(name);
            return value != null ? Optional.of(value) : below.apply(name);
        };
    }
}
