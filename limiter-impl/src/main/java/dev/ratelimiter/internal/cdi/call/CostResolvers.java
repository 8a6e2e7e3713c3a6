package dev.ratelimiter.internal.cdi.call;

import dev.ratelimiter.RateLimitCostResolver;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;

import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds the {@link RateLimitCostResolver} beans {@code @RateLimited(costResolver)} names, and calls them: an
 * exception or a negative cost is "no cost" (the call keeps what it reserved), logged once per resolver without the
 * exception's message (the result it read may hold what the application would not log).
 *
 * <p>The injected {@code @Any Instance<RateLimitCostResolver>} also keeps Quarkus ArC from removing a resolver bean
 * that nothing else injects.
 */
@ApplicationScoped
public class CostResolvers {

    private static final System.Logger LOG = System.getLogger(CostResolvers.class.getName());

    /**
     * A resolver bean and its bean class's name, which messages name (the instance may be a client proxy).
     *
     * @param resolver the contextual reference
     * @param label    the bean class's name
     */
    public record CostResolver(RateLimitCostResolver resolver, String label) {
    }

    @Inject
    @Any
    Instance<RateLimitCostResolver> resolvers;

    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    /**
     * The one resolver bean of {@code type}.
     *
     * @throws IllegalArgumentException saying whether none or several beans match, naming them
     */
    public CostResolver find(Class<? extends RateLimitCostResolver> type) {
        NamedBeans.Found<RateLimitCostResolver> found = NamedBeans.only(resolvers.select(type),
                RateLimitCostResolver.class, "costResolver = " + type.getName() + ".class");
        return new CostResolver(found.bean(), found.label());
    }

    /**
     * The cost the resolver reads from {@code result}; empty when it gives none, gives a negative one or throws.
     */
    public OptionalLong cost(CostResolver resolver, String bucket, Object result) {
        OptionalLong cost;
        try {
            cost = resolver.resolver().cost(bucket, result);
        } catch (Exception e) { // a checked exception thrown sneakily too: never the caller's
            report(resolver, "threw " + e.getClass().getName());
            return OptionalLong.empty();
        }
        if (cost == null || cost.isPresent() && cost.getAsLong() < 0) {
            report(resolver, cost == null ? "returned null" : "returned a negative cost");
            return OptionalLong.empty();
        }
        return cost;
    }

    private void report(CostResolver resolver, String what) {
        if (reported.add(resolver.label())) {
            LOG.log(System.Logger.Level.WARNING, "Rate limiter: the cost resolver " + resolver.label() + " " + what
                    + "; such calls keep the cost they reserved (@RateLimited(cost)). Logged once per resolver.");
        }
    }
}
