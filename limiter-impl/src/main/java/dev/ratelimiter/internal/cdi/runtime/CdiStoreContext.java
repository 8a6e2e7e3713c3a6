package dev.ratelimiter.internal.cdi.runtime;

import dev.ratelimiter.spi.Sweepable;
import dev.ratelimiter.internal.core.chain.PlainStoreContext;
import dev.ratelimiter.spi.StoreConfig;
import dev.ratelimiter.spi.StoreContext;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.Instance;

import java.lang.annotation.Annotation;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.function.BooleanSupplier;
import javax.naming.InitialContext;
import javax.naming.NameNotFoundException;
import javax.naming.NamingException;

/**
 * The {@link StoreContext} of a store built in a server: beans from the CDI container, resources from JNDI (the one
 * place the library looks up JNDI), the JTA status, and the server's managed executor and thread factory
 * (Jakarta Concurrency) where it has them. Closing it stops the sweeps it started.
 */
final class CdiStoreContext implements StoreContext, AutoCloseable {

    private final Instance<Object> beans;
    private final PlainStoreContext plain;

    /**
     * @param config the store's configuration subtree
     * @param clock  the library's clock
     * @param beans  every bean ({@code @Any}), typed Object since a store's types may be absent
     */
    CdiStoreContext(StoreConfig config, InstantSource clock, Instance<Object> beans) {
        this.beans = beans;
        this.plain = new PlainStoreContext(config, clock,
                serverDefault("java:comp/DefaultManagedThreadFactory", ThreadFactory.class));
    }

    @Override
    public StoreConfig config() {
        return plain.config();
    }

    @Override
    public InstantSource clock() {
        return plain.clock();
    }

    @Override
    public <T> Optional<T> bean(Class<T> type, Optional<String> name) {
        Instance<T> candidates = beans.select(type, jakarta.enterprise.inject.Any.Literal.INSTANCE);
        if (name.isEmpty()) {
            Instance<T> bean = candidates.select(Default.Literal.INSTANCE);
            return bean.isResolvable() ? Optional.of(bean.get()) : Optional.empty();
        }
        for (Instance.Handle<T> handle : candidates.handles()) {
            for (Annotation qualifier : handle.getBean().getQualifiers()) {
                if (name.get().equals(qualifierValue(qualifier))) {
                    return Optional.of(handle.get());
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public <T> Optional<T> lookup(String jndiName, Class<T> type) {
        Object found;
        try {
            found = new InitialContext().lookup(jndiName);
        } catch (NamingException e) {
            if (notBound(e)) {
                return Optional.empty();
            }
            throw new IllegalStateException("JNDI look-up of '" + jndiName + "' failed: " + e.getMessage(), e);
        } catch (RuntimeException | LinkageError e) {
            throw new IllegalStateException("JNDI look-up of '" + jndiName + "' failed: " + e, e);
        }
        if (!type.isInstance(found)) {
            throw new IllegalStateException("JNDI name '" + jndiName + "' holds a "
                    + (found == null ? "null" : found.getClass().getName()) + ", not a " + type.getName());
        }
        return Optional.of(type.cast(found));
    }

    @Override
    public Optional<BooleanSupplier> transactionActive() {
        return JtaTransactions.detect(beans);
    }

    @Override
    public Optional<ExecutorService> managedExecutor() {
        return serverDefault("java:comp/DefaultManagedExecutorService", ExecutorService.class);
    }

    @Override
    public void sweep(Sweepable sweepable, Duration interval) {
        plain.sweep(sweepable, interval);
    }

    @Override
    public void close() {
        plain.close();
    }

    /** A default resource the platform binds in JNDI; empty where there is no JNDI or no such resource. */
    static <T> Optional<T> serverDefault(String name, Class<T> type) {
        try {
            Object found = new InitialContext().lookup(name);
            return type.isInstance(found) ? Optional.of(type.cast(found)) : Optional.empty();
        } catch (NamingException | RuntimeException | LinkageError e) {
            return Optional.empty();
        }
    }

    /**
     * Whether a naming failure says only that the name is not bound (GlassFish wraps that in a NamingException of
     * its own; a NamingException's cause is its root exception).
     */
    private static boolean notBound(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof NameNotFoundException) {
                return true;
            }
        }
        return false;
    }

    private static Object qualifierValue(Annotation qualifier) {
        try {
            return qualifier.annotationType().getMethod("value").invoke(qualifier);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // a qualifier without a value()
        }
    }
}
