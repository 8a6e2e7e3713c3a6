package dev.ratelimiter.internal.core.settings;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * A property name that sets one of a bucket's plans (docs/plans.md), as the configuration lists it:
 * {@code ratelimiter.buckets.<name>.plans.<plan>.<leaf>}, or its environment form
 * {@code RATELIMITER_BUCKETS_<NAME>_PLANS_<PLAN>_<LEAF>}. Such a name is never a bucket's own property: bucket names
 * hold no {@code .}, and in the environment form, where {@code _} stands for {@code .} and {@code -} alike, a
 * {@code _PLANS_} followed by a plan and a leaf always reads as a plan, so
 * {@code RATELIMITER_BUCKETS_REPORTS_PLANS_PRO_LIMIT} is never a bucket {@code reports-plans-pro} (a bucket whose
 * name holds {@code -plans-} is configured in properties form). Only a bucket's own property right after it
 * ({@code RATELIMITER_BUCKETS_TEAM_PLANS_ON_OUTAGE}) reads as a bucket's, {@code team-plans}: no plan's leaf is one.
 *
 * @param written      the name as listed, without a profile
 * @param environment  whether it is in environment form
 * @param readings     how it may read, each a bucket and what follows {@code plans}: one in properties form
 *                     ({@code pro.limit}); in environment form, one per {@code _PLANS_} it holds, bucket shortest
 *                     first ({@code PRO_LIMIT})
 */
record PlanPropertyName(String written, boolean environment, List<Reading> readings) {

    private static final String ENV_BUCKETS = "RATELIMITER_BUCKETS_";
    private static final String ENV_PLANS = "_PLANS_";

    /**
     * One way to read the name.
     *
     * @param bucket the bucket's name, in properties form ({@code api-authenticated})
     * @param rest   what follows {@code plans}: {@code pro.limit}, or in environment form {@code PRO_LIMIT}
     */
    record Reading(String bucket, String rest) {
    }

    /**
     * What a plan's property sets, in properties form.
     *
     * @param bucket the bucket's name
     * @param plan   the plan's name: as declared when {@code declared}, else as well as the name tells it
     * @param leaf   the property's last segment ({@code limit}, or a wrong one such as {@code window}); empty if none
     * @param declared whether the bucket declares the plan
     */
    record Target(String bucket, String plan, String leaf, boolean declared) {

        /** {@return the full name in properties form, {@code ratelimiter.buckets.<bucket>.plans.<plan>.<leaf>}} */
        String fullName() {
            return PropertyTable.BUCKETS + bucket + ".plans." + plan + (leaf.isEmpty() ? "" : "." + leaf);
        }
    }

    /**
     * @param name a property name without its profile
     * @return the plan property it sets, empty when it sets none (a bucket's own property, or another name)
     */
    static Optional<PlanPropertyName> of(String name) {
        if (name.startsWith(PropertyTable.BUCKETS)) {
            String[] segments = name.substring(PropertyTable.BUCKETS.length()).split("\\.", 3);
            if (segments.length == 3 && !segments[0].isEmpty() && segments[1].equals("plans")) {
                return Optional.of(new PlanPropertyName(name, false, List.of(new Reading(segments[0], segments[2]))));
            }
        } else if (name.startsWith(ENV_BUCKETS)) {
            String rest = name.substring(ENV_BUCKETS.length());
            List<Reading> readings = new ArrayList<>();
            for (int at = rest.indexOf(ENV_PLANS, 1); at > 0; at = rest.indexOf(ENV_PLANS, at + 1)) {
                String after = rest.substring(at + ENV_PLANS.length());
                // a plan and a leaf: RATELIMITER_BUCKETS_X_PLANS (a bucket's plans), ..._X_PLANS_LIMIT or
                // ..._X_PLANS_ON_OUTAGE (a bucket x-plans's own property) are no plan's
                if (after.indexOf('_') > 0 && !after.endsWith("_") && PropertyTable.BUCKET_PROPERTIES.stream()
                        .noneMatch(property -> after.equals(toEnvironment(property)))) {
                    readings.add(new Reading(fromEnvironment(rest.substring(0, at)), after));
                }
            }
            if (!readings.isEmpty()) {
                return Optional.of(new PlanPropertyName(name, true, List.copyOf(readings)));
            }
        }
        return Optional.empty();
    }

    /**
     * What the name sets, given what each bucket declares: in environment form, the reading whose bucket declares a
     * plan whose environment form ({@code PRO_PLUS} for {@code pro-plus}) starts the rest, the longest such plan;
     * when none does, a guess (the first reading whose bucket is among {@code buckets}, the plan before a known
     * leaf) marked undeclared.
     *
     * @param declaredPlans a bucket's declared plans, by bucket name; empty for none
     * @param buckets       the names of the configured buckets
     */
    Target target(Function<String, List<String>> declaredPlans, Set<String> buckets) {
        if (!environment) {
            Reading reading = readings.get(0);
            int dot = reading.rest().indexOf('.');
            String plan = dot < 0 ? reading.rest() : reading.rest().substring(0, dot);
            String leaf = dot < 0 ? "" : reading.rest().substring(dot + 1);
            return new Target(reading.bucket(), plan, leaf, declaredPlans.apply(reading.bucket()).contains(plan));
        }
        for (Reading reading : readings) {
            Optional<String> plan = declaredPlans.apply(reading.bucket()).stream()
                    .filter(declared -> reading.rest().startsWith(toEnvironment(declared) + "_"))
                    .max(Comparator.comparingInt(String::length));
            if (plan.isPresent()) {
                String leaf = reading.rest().substring(toEnvironment(plan.get()).length() + 1);
                return new Target(reading.bucket(), plan.get(), fromEnvironment(leaf), true);
            }
        }
        Reading guess = readings.stream().filter(reading -> buckets.contains(reading.bucket())).findFirst()
                .orElse(readings.get(0));
        String rest = guess.rest();
        List<String> leaves = new ArrayList<>(PropertyTable.PLAN_PROPERTIES);
        leaves.addAll(PropertyTable.BUCKET_PROPERTIES);
        for (String leaf : leaves) {
            String suffix = "_" + toEnvironment(leaf);
            if (rest.endsWith(suffix) && rest.length() > suffix.length()) {
                return new Target(guess.bucket(), fromEnvironment(rest.substring(0, rest.length() - suffix.length())),
                        leaf, false);
            }
        }
        int last = rest.lastIndexOf('_');
        return new Target(guess.bucket(), fromEnvironment(rest.substring(0, last)),
                fromEnvironment(rest.substring(last + 1)), false);
    }

    /** {@code PRO_PLUS}: a name's environment form, as MicroProfile Config maps {@code pro-plus} to it. */
    static String toEnvironment(String name) {
        return name.toUpperCase(Locale.ROOT).replace('-', '_').replace('.', '_');
    }

    /** {@code pro-plus}: a bucket's, plan's or leaf's name from its environment form (names hold no {@code _}). */
    static String fromEnvironment(String name) {
        return name.toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
