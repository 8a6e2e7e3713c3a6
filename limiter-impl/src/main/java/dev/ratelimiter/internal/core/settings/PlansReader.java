package dev.ratelimiter.internal.core.settings;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Reads the buckets' plans for {@link SettingsReader} (docs/plans.md): {@code ratelimiter.buckets.<name>.plans}, each
 * plan's {@code limit}, {@code limits} and {@code burst}, and {@code ratelimiter.buckets.<name>.plan-resolver}; also in
 * environment form ({@code RATELIMITER_BUCKETS_REPORTS_PLANS_PRO_LIMIT}, read through {@link PlanPropertyName}) and
 * under an active profile. A plan changes limits only, so every plan is its bucket under other limits
 * ({@link Bucket#withPlan}); each mistake adds a line naming the property to the reader's problems.
 */
final class PlansReader {

    private static final String BUCKETS = PropertyTable.BUCKETS;
    private static final Pattern PLAN_NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");
    /** Labels the library gives limits that no declared plan's are, so no plan may be called so. */
    private static final Map<String, String> RESERVED = Map.of(
            Bucket.NO_PLAN, "the label of a bucket's own limits",
            Bucket.EXPLICIT_PLAN, "the label of a customer's explicit limits from a plan resolver");

    private final List<String> propertyNames;
    private final PropertyValues values;
    private final LimitsParser limitsParser;
    private final List<String> problems;

    /**
     * @param propertyNames every property name the configuration knows
     * @param values        the reader's parser, adding to {@code problems}
     * @param problems      the reader's problems
     */
    PlansReader(List<String> propertyNames, PropertyValues values, List<String> problems) {
        this.propertyNames = propertyNames;
        this.values = values;
        this.limitsParser = new LimitsParser(values, problems);
        this.problems = problems;
    }

    /**
     * The plans and plan resolver of every bucket that has either.
     *
     * @param buckets the configured buckets, by name (a bucket with a problem is absent, its plans unread)
     * @param names   every bucket name the configuration sets a property of, whether or not it was read
     * @return by bucket name; empty when no bucket has plans nor a resolver
     */
    Map<String, BucketPlans> plans(Map<String, Bucket> buckets, Set<String> names) {
        Map<String, List<String>> declared = new TreeMap<>();
        for (String name : names) {
            declared.put(name, declaredPlans(name));
        }
        checkPlanProperties(declared, names);
        Map<String, BucketPlans> plans = new TreeMap<>();
        buckets.forEach((name, bucket) -> {
            Optional<String> resolver = values.text(BUCKETS + name + ".plan-resolver").map(String::strip);
            Map<String, Bucket> planned = new LinkedHashMap<>();
            for (String plan : declared.getOrDefault(name, List.of())) {
                plan(bucket, plan).ifPresent(underPlan -> planned.put(plan, underPlan));
            }
            if (!planned.isEmpty() || resolver.isPresent()) {
                plans.put(name, new BucketPlans(planned, resolver));
            }
        });
        return plans;
    }

    /** The bucket's {@code plans}, each a valid name listed once; a wrong one is a problem and left out. */
    private List<String> declaredPlans(String bucket) {
        String property = BUCKETS + bucket + ".plans";
        List<String> plans = new ArrayList<>();
        for (String item : values.text(property).orElse("").split(",")) {
            String plan = item.strip();
            if (plan.isEmpty()) {
                continue;
            }
            if (RESERVED.containsKey(plan)) {
                problems.add(property + ": '" + plan + "' is reserved (" + RESERVED.get(plan)
                        + "); give the plan another name");
            } else if (!PLAN_NAME.matcher(plan).matches()) {
                problems.add(property + ": '" + plan + "' is not a plan name; a plan's name matches "
                        + "[a-z0-9][a-z0-9-]{0,63} (lower-case letters, digits and '-')");
            } else if (plans.contains(plan)) {
                problems.add(property + ": '" + plan + "' is listed twice; list each plan once");
            } else {
                plans.add(plan);
            }
        }
        return plans;
    }

    /**
     * Every name that sets a plan's property (under an active profile too) must set {@code limit}, {@code limits}
     * or {@code burst} of a plan its bucket declares; it is never read as a bucket of its own. One problem per
     * property, naming each name that sets it.
     */
    private void checkPlanProperties(Map<String, List<String>> declared, Set<String> names) {
        Map<PlanPropertyName.Target, Set<String>> written = new LinkedHashMap<>();
        Set<PlanPropertyName.Target> inEnvironment = new HashSet<>();
        for (String listed : propertyNames) {
            Optional<ProfiledName> profiled = ProfiledName.of(listed);
            Optional<PlanPropertyName> planName = PlanPropertyName.of(profiled.map(ProfiledName::name).orElse(listed));
            if (planName.isEmpty()) {
                continue;
            }
            PlanPropertyName.Target target = planName.get().target(
                    bucket -> declared.getOrDefault(bucket, List.of()), names);
            // Config lists every profile's names and answers for the name without the profile only when that
            // profile is active (docs/guide.md#configuration-profiles). Another profile's name for a property the
            // active one sets is not told apart, so it is named beside it.
            if (profiled.isEmpty() || values.answers(target.fullName())) {
                written.computeIfAbsent(target, any -> new TreeSet<>()).add(listed);
                if (planName.get().environment()) {
                    inEnvironment.add(target);
                }
            }
        }
        written.forEach((target, listed) -> {
            boolean environment = inEnvironment.contains(target);
            String named = String.join(" or ", listed) + (environment ? " (" + target.fullName() + ")" : "");
            String bucketBase = BUCKETS + target.bucket() + ".";
            if (!PropertyTable.PLAN_PROPERTIES.contains(target.leaf())) {
                boolean bucketsOwn = PropertyTable.BUCKET_PROPERTIES.contains(target.leaf());
                problems.add(named + ": a plan changes limits only: set its limit (a bucket of one window), limits "
                        + "or burst (a token bucket)" + (bucketsOwn ? "; " + target.leaf() + " is the bucket's own, "
                        + bucketBase + target.leaf() + ", the same for every plan" : ""));
            } else if (!target.declared()) {
                problems.add(named + ": bucket '" + target.bucket() + "' declares no plan '" + target.plan()
                        + "'; add the plan to " + bucketBase + "plans, or remove the property"
                        + (environment ? " (an environment variable with _PLANS_ after the bucket's name always sets "
                        + "a plan: a bucket whose name holds '-plans-' is configured in properties form)" : ""));
            }
        });
    }

    /** The bucket under one declared plan's limits; empty after a problem naming the property. */
    private Optional<Bucket> plan(Bucket bucket, String plan) {
        String base = BUCKETS + bucket.name() + ".plans." + plan + ".";
        Optional<String> limitText = values.text(base + "limit");
        Optional<String> limitsText = values.text(base + "limits");
        Optional<String> burstText = values.text(base + "burst");
        if (limitText.isEmpty() && limitsText.isEmpty()) {
            problems.add(BUCKETS + bucket.name() + ".plans: plan '" + plan + "' is declared without limits; set "
                    + limitsToSet(bucket, base));
            return Optional.empty();
        }
        if (limitText.isPresent() && limitsText.isPresent()) {
            problems.add(base + "limit: set either it or " + base + "limits, not both");
            return Optional.empty();
        }
        List<Limit> limits;
        if (limitText.isPresent()) {
            if (bucket.hasSeveralWindows()) {
                problems.add(base + "limit: bucket '" + bucket.name() + "' has several windows, and a plan changes "
                        + "limits only; set " + limitsToSet(bucket, base) + " instead");
                return Optional.empty();
            }
            Long limit = limitsParser.limit(base + "limit", limitText.get());
            limits = limit == null ? null : List.of(bucket.limits().get(0).withLimit(limit));
        } else {
            limits = limitsParser.limits(base + "limits", limitsText.get());
        }
        long burst = 0;
        if (burstText.isPresent()) {
            if (!bucket.isTokenBucket()) {
                problems.add(base + "burst: bucket '" + bucket.name() + "' is a " + bucket.algorithm().configName()
                        + ", which has no burst, and a plan changes limits only; remove it");
                return Optional.empty();
            }
            Long parsed = values.parseWholeNumber(base + "burst", burstText.get(),
                    PropertyTable.PLAN_BURST.wholeNumbers());
            if (parsed == null) {
                return Optional.empty();
            }
            burst = parsed;
        }
        if (limits == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(bucket.withPlan(plan, limits, burst));
        } catch (IllegalArgumentException e) {
            problems.add(base + (burstText.isPresent() && e.getMessage().contains("burst") ? "burst"
                    : limitsText.isPresent() ? "limits" : "limit") + ": " + e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * What a plan of this bucket sets: {@code limit} for a bucket of one window, else {@code limits} with the
     * bucket's own windows, shown with the bucket's own limits as the example.
     */
    private static String limitsToSet(Bucket bucket, String base) {
        if (!bucket.hasSeveralWindows()) {
            return base + "limit (the plan's limit per " + windowText(bucket.limits().get(0))
                    + ", the bucket's window)";
        }
        return base + "limits with one limit for each of the bucket's windows, as the bucket's own "
                + bucket.limits().stream().map(limit -> limit.limit() + "/" + windowText(limit))
                .collect(Collectors.joining(", "));
    }

    /** A window as configuration writes it: {@code PT1M}, or a calendar period's name ({@code month}). */
    private static String windowText(Limit limit) {
        return limit.isCalendar() ? limit.windowName() : limit.window().toString();
    }
}
