package dev.ratelimiter.internal.core.settings;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * When the buckets' settings are read again while the application runs (docs/live-limits.md).
 *
 * @param interval {@code ratelimiter.reload.interval}: between two reloads; {@link Duration#ZERO} reloads only on
 *                 {@code RateLimits.reload()}
 * @param file     {@code ratelimiter.reload.file}: a properties file read above every other source, at startup and
 *                 at each reload; empty for none
 */
public record ReloadSettings(Duration interval, Optional<String> file) {

    /** No periodic reload and no file. */
    public static final ReloadSettings OFF = new ReloadSettings(Duration.ZERO, Optional.empty());

    public ReloadSettings {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(file, "file");
    }

    /** {@return whether reloads run on their own, every {@link #interval()}} */
    public boolean periodic() {
        return !interval.isZero();
    }
}
