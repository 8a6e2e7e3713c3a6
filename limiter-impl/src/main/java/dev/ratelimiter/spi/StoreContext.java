package dev.ratelimiter.spi;

import dev.ratelimiter.spi.Sweepable;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;

/**
 * What the library and the server offer a {@link RateLimitStoreProvider} while it builds its store: its
 * configuration, the clock, beans and JNDI resources, the server's managed threads, and sweeps. Under CDI it is
 * backed by the container; in plain Java (tests, benchmarks) every server resource is simply absent.
 */
public interface StoreContext {

    /** The store's configuration subtree, {@code ratelimiter.<name>.*}. */
    StoreConfig config();

    /** The library's clock (the test clock in tests). */
    InstantSource clock();

    /**
     * An application bean of this type: with a name, the one carrying a qualifier whose {@code value()} is the name
     * ({@code @Named}, {@code @Identifier}, Quarkus' {@code @io.quarkus.agroal.DataSource}); without, the only
     * {@code @Default} one.
     *
     * @param type the bean's type, such as {@code javax.sql.DataSource}
     * @param name the qualifier's value; empty for the only default bean of the type
     * @return empty when there is none (or, without a name, more than one)
     */
    <T> Optional<T> bean(Class<T> type, Optional<String> name);

    /**
     * A resource bound in JNDI, such as {@code java:comp/env/jdbc/limits}.
     *
     * @return empty when nothing is bound under the name (yet: a server may bind an application's own resources
     *         only when the application starts)
     * @throws IllegalStateException where there is no naming service, or what is bound is not a {@code type}; the
     *                               message says which
     */
    <T> Optional<T> lookup(String jndiName, Class<T> type);

    /**
     * Whether the calling thread is in an active JTA transaction; empty where the server has no transaction
     * manager.
     */
    Optional<BooleanSupplier> transactionActive();

    /** The server's default managed executor (Jakarta Concurrency), if it has one. */
    Optional<ExecutorService> managedExecutor();

    /**
     * Sweeps {@code sweepable} every {@code interval}, on a thread of the library's (from the server's managed
     * thread factory where it has one, else a daemon thread); stopped when the application stops, before the store
     * is closed, and the thread ended.
     *
     * @param sweepable what deletes ended counters
     * @param interval  the delay between the end of one sweep and the start of the next, positive
     */
    void sweep(Sweepable sweepable, Duration interval);
}
