package dev.ratelimiter.internal.core.settings;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds {@code ratelimiter.*} property names that no setting reads, such as {@code ratelimiter.buckets.login.limt},
 * and names the nearest known property for each (docs/reference.md).
 *
 * <p>Only names in properties form are checked: a name must start with {@code ratelimiter.} exactly. Environment
 * variables ({@code RATELIMITER_BUCKETS_LOGIN_LIMT}) appear among MicroProfile Config's property names in upper
 * case with {@code _}, so they never match; their names are ambiguous ({@code _} stands for {@code .} and
 * {@code -}), so they are not checked. A name under a profile ({@code %dev.ratelimiter.buckets.login.limt}) is
 * checked as the name it sets, whether or not its profile is active, and reported with its profile. A bucket's
 * properties are known for any bucket name, and a plan's
 * ({@code ratelimiter.buckets.<name>.plans.<plan>.limit|limits|burst}) for any plan: whether the bucket declares the
 * plan is {@link SettingsReader}'s check, which fails the start.
 */
public final class UnknownProperties {

    /**
     * Every property besides the buckets' and the store providers': the rows of {@link PropertyTable} that are no
     * bucket's.
     */
    static final List<String> KNOWN = PropertyTable.ALL.stream().filter(property -> !property.ofBucket())
            .map(PropertyTable.Property::fullName).toList();

    private UnknownProperties() {
    }

    /**
     * One warning per unknown name, in the order given.
     *
     * @param propertyNames every property name the configuration knows (MicroProfile Config's
     *                      {@code getPropertyNames()}); walked once
     * @return lines such as {@code Unknown property ratelimiter.buckets.login.limt is ignored; did you mean
     *         ratelimiter.buckets.login.limit?} ({@code %dev.ratelimiter...} on both sides for a name under the
     *         profile {@code dev}), empty when every {@code ratelimiter.} name is known
     */
    public static List<String> warnings(Iterable<String> propertyNames) {
        return warnings(propertyNames, StoreProviderRegistry.load());
    }

    /**
     * One warning per unknown name, in the order given, each store provider's
     * {@link dev.ratelimiter.spi.RateLimitStoreProvider#propertyNames() properties} known under
     * {@code ratelimiter.<name>.*}.
     *
     * @param propertyNames every property name the configuration knows; walked once
     * @param stores        the store providers found
     * @return the lines as {@link #warnings(Iterable)} gives them
     */
    public static List<String> warnings(Iterable<String> propertyNames, StoreProviderRegistry stores) {
        List<String> known = new ArrayList<>(KNOWN);
        stores.byName().forEach((store, provider) -> provider.propertyNames().forEach(property -> {
            String name = PropertyTable.PREFIX + store + '.' + property;
            if (!known.contains(name)) {
                known.add(name);
            }
        }));
        List<String> warnings = new ArrayList<>();
        for (String name : propertyNames) {
            if (name.startsWith(PropertyTable.PREFIX) && !known(name, known)) {
                warnings.add(absentModule(name, name, stores).orElseGet(() ->
                        "Unknown property " + name + " is ignored; did you mean " + nearest(name, known) + "?"));
            } else if (name.startsWith("%")) {
                // Under a profile: checked as the name it sets, whichever profile is active; the profile is kept.
                ProfiledName.of(name).filter(profiled -> !known(profiled.name(), known)).ifPresent(profiled -> {
                    String prefix = "%" + profiled.profile() + ".";
                    warnings.add(absentModule(name, profiled.name(), stores).orElseGet(() ->
                            "Unknown property " + name + " is ignored; did you mean "
                                    + prefix + nearest(profiled.name(), known) + "?"));
                });
            }
        }
        return warnings;
    }

    /**
     * A property of one of the library's own stores whose module is absent ({@code ratelimiter.valkey.url} without
     * limiter-store-valkey): no typo, so no nearest name, but the artifact that reads it.
     */
    private static Optional<String> absentModule(String written, String name, StoreProviderRegistry stores) {
        if (!name.startsWith(PropertyTable.PREFIX)) {
            return Optional.empty();
        }
        String rest = name.substring(PropertyTable.PREFIX.length());
        int dot = rest.indexOf('.');
        return dot < 0 ? Optional.empty() : stores.missingModule(rest.substring(0, dot)).map(module ->
                "Property " + written + " is ignored: it belongs to a store whose module is not on the class path ("
                        + module + "); add that dependency to use the store, or remove the property");
    }

    private static boolean known(String name, List<String> known) {
        if (name.startsWith(PropertyTable.BUCKETS)) {
            String rest = name.substring(PropertyTable.BUCKETS.length());
            String[] segments = rest.split("\\.", -1);
            if (segments.length == 4 && segments[1].equals("plans")) {
                // ratelimiter.buckets.<name>.plans.<plan>.<leaf>: a plan's (whether declared is SettingsReader's
                // check)
                return !segments[2].isEmpty() && PropertyTable.PLAN_PROPERTIES.contains(segments[3]);
            }
            // a bucket name with a '.' is SettingsReader's problem, which names the property
            int dot = rest.lastIndexOf('.');
            return dot > 0 && PropertyTable.BUCKET_PROPERTIES.contains(rest.substring(dot + 1));
        }
        return known.contains(name);
    }

    /** The known name fewest single-character edits away, with the typo's own bucket name substituted. */
    private static String nearest(String name, List<String> known) {
        String[] parts = name.split("\\.", -1);
        if (parts.length == 3 && name.startsWith(PropertyTable.BUCKETS)) {
            return name + ".limit"; // a bucket's name alone: what it needs first, though ".mode" is fewer edits away
        }
        // ratelimiter.<buckets>.<bucket name>.<property>, or ratelimiter.buckets.<bucket name> without one: the
        // bucket name is kept as written
        String bucket = parts.length >= 4 ? String.join(".", List.of(parts).subList(2, parts.length - 1))
                : name.startsWith(PropertyTable.BUCKETS) ? name.substring(PropertyTable.BUCKETS.length())
                : "<name>";
        List<String> candidates = new ArrayList<>(known);
        if (parts.length == 6 && !parts[4].isEmpty()) {
            // ratelimiter.<buckets>.<bucket name>.<plans>.<plan>.<property>: a plan's, its bucket and plan kept
            bucket = parts[2];
            String plan = PropertyTable.BUCKETS + bucket + ".plans." + parts[4] + ".";
            PropertyTable.PLAN_PROPERTIES.forEach(property -> candidates.add(plan + property));
        }
        String ofBucket = bucket;
        PropertyTable.BUCKET_PROPERTIES.forEach(property ->
                candidates.add(PropertyTable.BUCKETS + ofBucket + "." + property));
        String best = candidates.get(0);
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int distance = editDistance(name, candidate);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    /** Levenshtein distance; startup-only, on names of a few dozen characters. */
    static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
