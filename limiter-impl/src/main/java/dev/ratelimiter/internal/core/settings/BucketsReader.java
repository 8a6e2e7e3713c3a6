package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.internal.core.key.KeyLists;
import dev.ratelimiter.OutagePolicy;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads the buckets for {@link SettingsReader}: discovers them from property names
 * {@code ratelimiter.buckets.<name>.<property>} ({@link PropertyTable#BUCKET_PROPERTIES}), also in their
 * environment-variable form and under an active profile, and parses each one's limits, outage policy and mode,
 * adding a line naming the property to the reader's problems for each mistake.
 */
final class BucketsReader {

    private static final String BUCKETS = PropertyTable.BUCKETS;
    private static final String ENV_BUCKETS = "RATELIMITER_BUCKETS_";
    private static final List<String> BUCKET_PROPERTIES = PropertyTable.BUCKET_PROPERTIES;
    /** {@code ratelimiter.buckets.<name>.mode}'s values: refusals enforced (the default), or only counted. */
    private static final List<String> MODES = List.of("enforce", "shadow");
    /** A token bucket's capacity ({@link Bucket#burst()}). */
    private static final Range<Long> BURST = PropertyTable.BUCKET_BURST.wholeNumbers();

    private final List<String> propertyNames;
    private final PropertyValues values;
    private final LimitsParser limitsParser;
    private final List<String> problems;
    private final ConcurrencyReader concurrency;
    final QuotaLeaseReader quotaLeases; // each bucket's quota leases once buckets() ran: quotaLeases.found()
    final WaitReader waits; // each bucket's wait once buckets() ran: waits.found()
    private final BlockReader blockReader;
    private final Set<String> shadowBuckets = new TreeSet<>();
    private final Map<String, FailureCounting> counting = new TreeMap<>();
    private final Map<String, KeyLists> lists = new TreeMap<>();
    private final Map<String, BlockSettings> blocks = new TreeMap<>();

    /**
     * @param propertyNames every property name the configuration knows, walked more than once
     * @param values        the reader's parser, adding to {@code problems}
     * @param problems      the reader's problems
     */
    BucketsReader(List<String> propertyNames, PropertyValues values, List<String> problems) {
        this.propertyNames = propertyNames;
        this.values = values;
        this.limitsParser = new LimitsParser(values, problems);
        this.concurrency = new ConcurrencyReader(values, problems);
        this.quotaLeases = new QuotaLeaseReader(values, problems);
        this.waits = new WaitReader(values, problems);
        this.blockReader = new BlockReader(values, problems);
        this.problems = problems;
    }

    /** The buckets {@link #buckets()} found in shadow mode, once it ran. */
    Set<String> shadowBuckets() {
        return Collections.unmodifiableSet(shadowBuckets);
    }

    /** What each bucket {@link #buckets()} found counts, where it is not {@link FailureCounting#ALL}, once it ran. */
    Map<String, FailureCounting> counting() {
        return Collections.unmodifiableMap(counting);
    }

    /** The allow and deny lists of each bucket {@link #buckets()} found, where it has either, once it ran. */
    Map<String, KeyLists> lists() {
        return Collections.unmodifiableMap(lists);
    }

    /** The block after a refusal of each bucket {@link #buckets()} found, where it has one, once it ran. */
    Map<String, BlockSettings> blocks() {
        return Collections.unmodifiableMap(blocks);
    }

    /** Every configured bucket, by name; a bucket with a problem is left out (the problem says why). */
    Map<String, Bucket> buckets() {
        Map<String, Bucket> buckets = new TreeMap<>();
        for (String name : names()) {
            String base = BUCKETS + name + ".";
            Optional<String> limitText = values.text(base + "limit");
            Optional<String> windowText = values.text(base + "window");
            Optional<String> limitsText = values.text(base + "limits");
            Optional<String> concurrencyText = values.text(base + "concurrency");
            List<Limit> limits;
            if (concurrencyText.isPresent()) {
                // concurrency wins over limit, window and limits, as limits wins over the other two: the library's
                // own microprofile-config.properties gives the global filter's buckets a limit and a window
                limits = concurrency.limits(base, name, concurrencyText.get());
                if (limits == null) {
                    continue;
                }
            } else if (limitsText.isPresent()) {
                // limits wins over limit and window, so it can replace the one window the library's own
                // microprofile-config.properties gives the global filter's buckets
                // (docs/guide.md#several-windows-per-bucket)
                limits = limitsParser.limits(base + "limits", limitsText.get());
            } else if (limitText.isEmpty() || windowText.isEmpty()) {
                problems.add(base + (limitText.isEmpty() ? "limit" : "window") + ": bucket '" + name
                        + "' is configured without it; a bucket needs both limit and window (or limits)");
                continue;
            } else {
                Long limit = limitsParser.limit(base + "limit", limitText.get());
                Limit parsed = limitsParser.limit(base + "window", limit, windowText.get());
                limits = parsed == null ? null : List.of(parsed);
            }
            ZoneId zone = zone(base + "zone");
            OutagePolicy onOutage = OutagePolicy.FALLBACK;
            Optional<String> onOutageText = values.text(base + "on-outage");
            if (onOutageText.isPresent()) {
                try {
                    onOutage = OutagePolicy.parse(onOutageText.get());
                } catch (IllegalArgumentException e) {
                    problems.add(base + "on-outage: " + e.getMessage());
                }
            }
            boolean shadow = shadowMode(base + "mode");
            Algorithm algorithm = concurrencyText.isPresent() ? Algorithm.CONCURRENCY : algorithm(base + "algorithm");
            Optional<String> burstText = values.text(base + "burst");
            long burst = 0;
            if (burstText.isPresent()) {
                Long parsed = values.parseWholeNumber(base + "burst", burstText.get(), BURST);
                if (algorithm != null && algorithm != Algorithm.TOKEN_BUCKET) {
                    problems.add(base + "burst: bucket '" + name + "' is a " + algorithm.configName()
                            + ", which has no burst; remove it, or set " + base + "algorithm=token-bucket");
                    continue;
                }
                if (parsed == null) {
                    continue;
                }
                burst = parsed;
            }
            if (limits != null && !calendarFits(base, name, limits, algorithm, limitsText.isPresent())) {
                continue;
            }
            if (limits != null && algorithm != null && zone != null) {
                try {
                    Bucket bucket = new Bucket(name, limits, onOutage, algorithm, burst, Bucket.NO_PLAN, zone);
                    Optional<BlockSettings> block = blockReader.read(base);
                    FailureCounting failures = counting(base);
                    if (bucket.isConcurrency() && !concurrency.fits(base, name, block, failures)) {
                        continue;
                    }
                    quotaLeases.read(base, name, bucket, block);
                    bucket = waits.read(base, name, bucket, quotaLeases.found().containsKey(name));
                    buckets.put(name, bucket);
                    if (shadow) {
                        shadowBuckets.add(name);
                    }
                    KeyLists keyLists = keyLists(base);
                    if (!keyLists.isEmpty()) {
                        lists.put(name, keyLists);
                    }
                    block.ifPresent(settings -> blocks.put(name, settings));
                    if (!failures.equals(FailureCounting.ALL)) {
                        counting.put(name, failures);
                    }
                } catch (IllegalArgumentException e) {
                    problems.add(base + (burstText.isPresent() && e.getMessage().contains("burst") ? "burst"
                            : limitsText.isPresent() ? "limits" : "*") + ": " + e.getMessage());
                }
            }
        }
        return buckets;
    }

    /**
     * Whether a calendar window, if the bucket has one, is its only window and counts as a fixed window; else a
     * problem naming the property to change ({@link Bucket}'s rule, said here with the property).
     */
    private boolean calendarFits(String base, String name, List<Limit> limits, Algorithm algorithm,
                                 boolean fromLimits) {
        Optional<Limit> calendar = limits.stream().filter(Limit::isCalendar).findFirst();
        if (calendar.isEmpty()) {
            return true;
        }
        String period = calendar.get().windowName();
        if (limits.size() > 1) {
            problems.add(base + "limits: bucket '" + name + "' has a calendar window (" + period + ") among "
                    + limits.size() + " windows; a calendar window must be its bucket's only window: give the "
                    + "other windows a bucket of their own and name both on the method");
            return false;
        }
        if (algorithm != null && algorithm != Algorithm.FIXED_WINDOW) {
            problems.add(base + "algorithm: bucket '" + name + "' is a " + algorithm.configName() + ", and its "
                    + (fromLimits ? "limits" : "window") + " is a calendar window (" + period + "), which counts as "
                    + "a fixed-window only; remove " + base + "algorithm, or give the window a length such as P1D");
            return false;
        }
        return true;
    }

    /** A bucket's {@code zone}, an IANA time zone ({@code Europe/Paris}); UTC when unset; null when invalid. */
    private ZoneId zone(String property) {
        Optional<String> text = values.text(property);
        if (text.isEmpty()) {
            return ZoneOffset.UTC;
        }
        try {
            return ZoneId.of(text.get().strip()).normalized(); // UTC, +02:00: ZoneOffset
        } catch (DateTimeException e) {
            problems.add(property + ": '" + text.get() + "' is not a time zone; use an IANA name such as "
                    + "Europe/Paris or America/New_York, or UTC");
            return null;
        }
    }

    /** A bucket's {@code algorithm}, {@code fixed-window} when unset; null when invalid (a problem). */
    private Algorithm algorithm(String property) {
        Optional<String> text = values.text(property);
        if (text.isEmpty()) {
            return Algorithm.FIXED_WINDOW;
        }
        Optional<Algorithm> algorithm = Algorithm.ofConfigName(text.get().strip()
                .toLowerCase(Locale.ROOT));
        if (algorithm.isEmpty() || algorithm.get() == Algorithm.CONCURRENCY) {
            problems.add(property + ": '" + text.get() + "' is not an algorithm; use "
                    + java.util.Arrays.stream(Algorithm.values()).filter(a -> a != Algorithm.CONCURRENCY)
                    .map(Algorithm::configName)
                    .collect(java.util.stream.Collectors.joining(", ")).replaceFirst(", ([^,]*)$", " or $1")
                    + (algorithm.isPresent() ? "; limit concurrency with " + property.replaceFirst("algorithm$",
                    "concurrency") + " instead" : ""));
            return null;
        }
        return algorithm.get();
    }

    /** A bucket's {@code allow} and {@code deny}; none, with the problem, if an entry is a malformed range. */
    private KeyLists keyLists(String base) {
        try {
            return KeyLists.parse(base + "allow", items(base + "allow"), base + "deny", items(base + "deny"));
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
            return KeyLists.NONE;
        }
    }

    /** A list property's items, each stripped, empty ones dropped. */
    private List<String> items(String name) {
        return Arrays.stream(values.text(name).orElse("").split(",")).map(String::strip)
                .filter(item -> !item.isEmpty()).toList();
    }

    /**
     * A bucket's {@code count}, {@code failure-exceptions} and {@code failure-statuses}
     * (docs/guide.md#counting-failures-only); a bad value is a problem naming its property, and the default stands.
     */
    private FailureCounting counting(String base) {
        boolean failuresOnly = false;
        Optional<String> count = values.text(base + "count");
        if (count.isPresent()) {
            String value = count.get().strip().toLowerCase(Locale.ROOT);
            if (!value.equals("all") && !value.equals("failures")) {
                problems.add(base + "count: '" + count.get() + "' is not a count; use all or failures");
            }
            failuresOnly = value.equals("failures");
        }
        // Whether each names a class is checked where the application's classes are visible (cdi.LimiterRuntime)
        List<String> exceptions = Arrays.stream(values.text(base + "failure-exceptions").orElse("").split(","))
                .map(String::strip).filter(name -> !name.isEmpty()).toList();
        List<FailureCounting.StatusRange> statuses = new ArrayList<>();
        for (String item : values.text(base + "failure-statuses").orElse("").split(",")) {
            if (item.isBlank()) {
                continue;
            }
            try {
                statuses.add(FailureCounting.StatusRange.parse(item));
            } catch (IllegalArgumentException e) {
                problems.add(base + "failure-statuses: " + e.getMessage());
            }
        }
        return new FailureCounting(failuresOnly, exceptions,
                statuses.isEmpty() ? FailureCounting.ALL.statuses() : statuses); // unset: the table's 400-599
    }

    /** Whether a bucket's {@code mode} is {@code shadow}; {@code enforce} when unset or invalid (a problem). */
    private boolean shadowMode(String property) {
        Optional<String> text = values.text(property);
        if (text.isEmpty()) {
            return false;
        }
        String mode = text.get().strip().toLowerCase(Locale.ROOT);
        if (!MODES.contains(mode)) {
            problems.add(property + ": '" + text.get() + "' is not a mode; use enforce or shadow");
            return false;
        }
        return mode.equals("shadow");
    }

    /** The names of the buckets the configuration sets a property of (under the active profile). */
    Set<String> names() {
        Set<String> names = new TreeSet<>();
        for (String property : propertyNames) {
            Optional<ProfiledName> profiled = ProfiledName.of(property);
            if (profiled.isEmpty()) {
                bucketProperty(property).ifPresent(set -> names.add(set.bucket()));
            } else {
                // Config lists every profile's names; it answers for the name without the profile only when that
                // profile is active (docs/guide.md#configuration-profiles), so only then does the bucket exist.
                bucketProperty(profiled.get().name())
                        .filter(set -> values.answers(BUCKETS + set.bucket() + "." + set.property()))
                        .ifPresent(set -> names.add(set.bucket()));
            }
        }
        return names;
    }

    /** A bucket's name and one of its {@link #BUCKET_PROPERTIES}. */
    private record BucketProperty(String bucket, String property) {
    }

    /**
     * The bucket property that {@code property} sets, in properties or environment form; empty if none, and for a
     * plan's ({@link PlanPropertyName}: {@code RATELIMITER_BUCKETS_REPORTS_PLANS_PRO_LIMIT} is no bucket
     * {@code reports-plans-pro}'s limit).
     */
    private static Optional<BucketProperty> bucketProperty(String property) {
        if (PlanPropertyName.of(property).isPresent()) {
            return Optional.empty();
        }
        if (property.startsWith(BUCKETS)) {
            String rest = property.substring(BUCKETS.length());
            int dot = rest.lastIndexOf('.');
            if (dot > 0 && BUCKET_PROPERTIES.contains(rest.substring(dot + 1))) {
                return Optional.of(new BucketProperty(rest.substring(0, dot), rest.substring(dot + 1)));
            }
        } else if (property.startsWith(ENV_BUCKETS)) {
            String rest = property.substring(ENV_BUCKETS.length());
            for (String bucketProperty : BUCKET_PROPERTIES) {
                String suffix = "_" + bucketProperty.toUpperCase(Locale.ROOT).replace('-', '_');
                if (rest.endsWith(suffix) && rest.length() > suffix.length()) {
                    return Optional.of(new BucketProperty(rest.substring(0, rest.length() - suffix.length())
                            .toLowerCase(Locale.ROOT).replace('_', '-'), bucketProperty));
                }
            }
        }
        return Optional.empty();
    }
}
