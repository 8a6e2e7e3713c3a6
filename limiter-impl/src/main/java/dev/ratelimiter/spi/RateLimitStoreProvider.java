package dev.ratelimiter.spi;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;

import java.util.EnumSet;
import java.util.Set;

/**
 * Builds one kind of store, selected by name with {@code ratelimiter.backend} (docs/writing-a-store.md).
 * Providers are found with {@link java.util.ServiceLoader}: a jar that ships one lists its class in
 * {@code META-INF/services/dev.ratelimiter.spi.RateLimitStoreProvider}. The library's own are {@code valkey} and
 * {@code postgres}; {@code memory}, the embedded default, is not a provider (it is also every shared store's
 * per-process fallback, and its hot path has no seam).
 */
public interface RateLimitStoreProvider {

    /**
     * The value of {@code ratelimiter.backend} that selects this store, and the name of its configuration subtree
     * {@code ratelimiter.<name>.*}: lower case letters, digits and {@code -}, unique among the providers found.
     */
    String name();

    /**
     * The properties this store reads, relative to its subtree ({@code url} for {@code ratelimiter.valkey.url}),
     * so that a misspelt one is warned about with the nearest name.
     */
    Set<String> propertyNames();

    /**
     * The algorithms this store decides ({@code ratelimiter.buckets.<name>.algorithm}): a bucket on another one fails
     * the deployment, naming the bucket's property and this store. The default, for a store written before the
     * library had algorithms, is {@link Algorithm#FIXED_WINDOW} only; a store that declares more decides each
     * {@link StoreItem} by its bucket's {@link Bucket#algorithm()} ({@link RateLimitStore#consume} says how). One
     * that declares {@link Algorithm#CONCURRENCY} keeps permits ({@link RateLimitStore#take},
     * {@link RateLimitStore#giveBack}, {@link RateLimitStore#renew}); a concurrency bucket
     * ({@code ratelimiter.buckets.<name>.concurrency}) on another store fails the deployment alike.
     *
     * @return one or more algorithms
     */
    default Set<Algorithm> algorithms() {
        return EnumSet.of(Algorithm.FIXED_WINDOW);
    }

    /**
     * Whether this store gives counts back ({@link RateLimitStore#refund}): a bucket that counts failures only
     * ({@code ratelimiter.buckets.<name>.count=failures}) on a store that does not fails the deployment, naming the
     * property and this store. The default, for a store written before refunds existed, is false.
     */
    default boolean refunds() {
        return false;
    }

    /**
     * Whether this store also takes debits: refunds of a negative cost ({@link RateLimitStore#refund}), which settle
     * a call's cost above what it reserved (docs/stores.md#settlements). Only read when
     * {@link #refunds()} is true. The default, for a store written before debits existed, is false: such a store
     * may read a negative cost as a refund.
     */
    default boolean debits() {
        return false;
    }

    /**
     * Whether this store decides {@link dev.ratelimiter.CalendarWindow calendar windows}: it opens a one-window
     * bucket's window for {@link CalendarPeriods#windowMillis} rather than its {@link dev.ratelimiter.Limit#window()}
     * (the period's nominal length), so the window ends at the period's boundary. A bucket of a calendar window
     * ({@code ratelimiter.buckets.<name>.window=month}) on a store that does not fails the deployment, naming the
     * property and this store. The default, for a store written before calendar windows existed, is false.
     */
    default boolean calendarWindows() {
        return false;
    }

    /**
     * Reads this store's settings from {@link StoreContext#config()} and builds the store. Called once at startup,
     * only when {@code ratelimiter.backend} names this provider.
     *
     * <p>A store that cannot be reached yet must still be built (the application deploys degraded and the circuit
     * breaker's probe finds it when it comes), while settings that can never work (a malformed URL, a missing
     * table) fail the deployment.
     *
     * @param context the configuration subtree and what the server provides
     * @return the store, closed by the library when the application stops
     * @throws ConfigurationException naming each property to change (use {@link StoreConfig}, which collects them)
     */
    RateLimitStore create(StoreContext context);
}
