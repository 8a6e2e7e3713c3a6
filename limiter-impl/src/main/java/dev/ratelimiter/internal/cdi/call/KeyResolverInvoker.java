package dev.ratelimiter.internal.cdi.call;

import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitContext;
import dev.ratelimiter.RateLimitKeyResolver;
import dev.ratelimiter.internal.cdi.config.LimiterConfiguration;
import dev.ratelimiter.internal.cdi.interceptor.RateLimitedMethod;
import dev.ratelimiter.internal.core.decision.RawKey;
import dev.ratelimiter.internal.core.key.KeyNamespace;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.literal.NamedLiteral;
import jakarta.inject.Inject;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds the {@link RateLimitKeyResolver} beans that {@code @RateLimited} and {@code ratelimiter.api.key-resolver}
 * name, and calls them: a {@code null} or blank key, or an exception, is "no key", logged once per resolver without
 * the key or the exception's message (either may hold a secret such as an API key).
 *
 * <p>The injected {@code @Any Instance<RateLimitKeyResolver>} also keeps Quarkus ArC from removing a resolver bean
 * that nothing else injects.
 */
@ApplicationScoped
public class KeyResolverInvoker {

    private static final System.Logger LOG = System.getLogger(KeyResolverInvoker.class.getName());

    /** The property naming the global filter's resolver. */
    static final String GLOBAL_PROPERTY = "ratelimiter.api.key-resolver";

    /**
     * A resolver bean and its bean class's name, which messages name (the instance may be a client proxy).
     *
     * @param resolver the contextual reference
     * @param label    the bean class's name
     */
    public record Resolver(RateLimitKeyResolver resolver, String label) {
    }

    @Inject
    @Any
    Instance<RateLimitKeyResolver> resolvers;

    @Inject
    LimiterConfiguration configuration;

    private final Set<String> reported = ConcurrentHashMap.newKeySet();
    private volatile Optional<Resolver> global;

    /**
     * The one resolver bean {@code name} designates.
     *
     * @throws IllegalArgumentException saying whether none or several beans match, naming them
     */
    public Resolver find(RateLimitedMethod.ResolverName name) {
        return name.type() != null ? only(resolvers.select(name.type()), name.describe())
                : only(resolvers.select(NamedLiteral.of(name.name())), name.describe());
    }

    /**
     * The global filter's resolver, {@code ratelimiter.api.key-resolver}: a {@code @Named} name, else a bean class's
     * fully qualified name; empty when the property is unset.
     *
     * @throws IllegalArgumentException naming the property, if it designates no bean or several
     */
    public Optional<Resolver> global() {
        Optional<Resolver> current = global;
        if (current == null) {
            current = configuration.settings().keyResolver().map(this::findGlobal);
            global = current;
        }
        return current;
    }

    private Resolver findGlobal(String value) {
        NamedBeans.Found<RateLimitKeyResolver> found = NamedBeans.byNameOrClass(resolvers, RateLimitKeyResolver.class,
                value, GLOBAL_PROPERTY + "='" + value + "'");
        return new Resolver(found.bean(), found.label());
    }

    private static Resolver only(Instance<? extends RateLimitKeyResolver> matching, String what) {
        NamedBeans.Found<RateLimitKeyResolver> found = NamedBeans.only(matching, RateLimitKeyResolver.class, what);
        return new Resolver(found.bean(), found.label());
    }

    /**
     * What the global filter's resolver reads: the bucket and the request, no method.
     *
     * @param bucket   the global bucket being decided ({@code api-authenticated} or {@code api-anonymous})
     * @param identity this request's identity, resolved by the filter just before
     */
    public RateLimitContext filterContext(String bucket, RequestIdentity identity) {
        return new CallContext(bucket, Optional.empty(), List.of(), identity.principalName(),
                identity.clientAddress(), identity.attributes());
    }

    /**
     * Asks {@code resolver} for the key of a call.
     *
     * @return the key with the resolver's normalization; empty when it returned {@code null} or a blank key, or
     *         threw (logged once per resolver)
     */
    public Optional<RawKey> resolve(Resolver resolver, RateLimitContext context) {
        String key;
        try {
            key = resolver.resolver().resolve(context);
        } catch (RuntimeException e) {
            report(resolver, context.bucket(), "threw " + e.getClass().getName()
                    + " (its message is not logged: it may hold the key)");
            return Optional.empty();
        }
        if (key == null || key.isBlank()) {
            report(resolver, context.bucket(), "returned " + (key == null ? "null" : "a blank key"));
            return Optional.empty();
        }
        return Optional.of(new RawKey(key, resolver.resolver().normalization(), KeyNamespace.APPLICATION));
    }

    private void report(Resolver resolver, String bucket, String what) {
        if (reported.add(resolver.label())) {
            LOG.log(System.Logger.Level.WARNING, "RateLimitKeyResolver " + resolver.label() + " " + what
                    + " for bucket \"" + bucket + "\": such a call is keyed by the bucket's fallback, or refused "
                    + "with 400 without one (the global filter keys it by the request's identity). Logged once per "
                    + "resolver.");
        }
    }
}
