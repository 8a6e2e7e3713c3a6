package dev.ratelimiter.internal.core.settings;

import java.util.Locale;
import java.util.Optional;

/**
 * A configuration property name written under a profile, as MicroProfile Config 3 and Quarkus list it among the
 * property names: {@code %dev.ratelimiter.buckets.login.limit} (properties form; SmallRye Config also takes several
 * profiles, {@code %dev,test.ratelimiter...}) or {@code _DEV_RATELIMITER_BUCKETS_LOGIN_LIMIT} (the environment
 * form of the same name).
 *
 * <p>Only the profile's prefix is taken off here; whether the profile is active is the Config implementation's
 * business ({@code mp.config.profile}, {@code quarkus.profile}): asked for the name without the prefix, it answers
 * the profile's value when that profile is active.
 *
 * @param profile the profile part as written ({@code dev}, {@code dev,test}, {@code DEV})
 * @param name    the name without it ({@code ratelimiter.buckets.login.limit},
 *                {@code RATELIMITER_BUCKETS_LOGIN_LIMIT})
 * @see <a href="https://download.eclipse.org/microprofile/microprofile-config-3.1/microprofile-config-spec-3.1.html#configprofile">MicroProfile Config 3.1, configuration profiles</a>
 */
public record ProfiledName(String profile, String name) {

    private static final String ENV_PREFIX = "_" + PropertyTable.PREFIX.replace('.', '_').toUpperCase(Locale.ROOT);

    /**
     * The profile and the rest of a name under a profile.
     *
     * @param property a property name as the configuration lists it
     * @return empty when {@code property} is under no profile, or when what follows the profile is not a
     *         {@code ratelimiter.} / {@code RATELIMITER_} name (the environment form's profile ends where
     *         {@code _RATELIMITER_} starts)
     */
    public static Optional<ProfiledName> of(String property) {
        if (property.startsWith("%")) {
            int dot = property.indexOf('.');
            if (dot > 1 && property.startsWith(PropertyTable.PREFIX, dot + 1)) {
                return Optional.of(new ProfiledName(property.substring(1, dot), property.substring(dot + 1)));
            }
            return Optional.empty();
        }
        if (property.startsWith("_")) {
            int start = property.indexOf(ENV_PREFIX, 1);
            if (start > 1) {
                return Optional.of(new ProfiledName(property.substring(1, start), property.substring(start + 1)));
            }
        }
        return Optional.empty();
    }
}
