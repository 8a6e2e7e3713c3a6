package dev.ratelimiter.contract;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.RateLimitStoreProvider;

import java.util.EnumSet;
import java.util.Set;

/**
 * What a store may decide beyond the core every store decides (fixed windows, several windows per bucket, costs,
 * several buckets in one call, plans, settings changed), as its provider declares it. A contract case that needs a
 * capability ({@link Requires}) runs only against a store that declares it, and is reported as skipped, naming the
 * capability, against the others.
 */
public enum Capability {

    /** {@link Algorithm#TOKEN_BUCKET} among the provider's {@link RateLimitStoreProvider#algorithms()}. */
    TOKEN_BUCKET("token buckets", "RateLimitStoreProvider.algorithms() without TOKEN_BUCKET"),

    /** {@link Algorithm#SLIDING_WINDOW} among the provider's {@link RateLimitStoreProvider#algorithms()}. */
    SLIDING_WINDOW("sliding windows", "RateLimitStoreProvider.algorithms() without SLIDING_WINDOW"),

    /** Concurrency limits, permits with leases: {@link Algorithm#CONCURRENCY} among the provider's algorithms. */
    CONCURRENCY("concurrency limits", "RateLimitStoreProvider.algorithms() without CONCURRENCY"),

    /** Counts given back: the provider's {@link RateLimitStoreProvider#refunds()} is true. */
    REFUNDS("refunds", "RateLimitStoreProvider.refunds() false"),

    /** Debits, refunds of a negative cost: the provider's {@link RateLimitStoreProvider#debits()} is true too. */
    DEBITS("debits", "RateLimitStoreProvider.debits() false"),

    /** Calendar windows: the provider's {@link RateLimitStoreProvider#calendarWindows()} is true. */
    CALENDAR_WINDOWS("calendar windows", "RateLimitStoreProvider.calendarWindows() false");

    private final String cases;
    private final String undeclared;

    Capability(String cases, String undeclared) {
        this.cases = cases;
        this.undeclared = undeclared;
    }

    /**
     * @param provider the store's provider
     * @return the capabilities it declares, read from {@link RateLimitStoreProvider#algorithms()},
     * {@link RateLimitStoreProvider#refunds()}, {@link RateLimitStoreProvider#debits()} and
     * {@link RateLimitStoreProvider#calendarWindows()}; empty for a
     * provider of the SPI's defaults (fixed windows, no refunds)
     */
    public static Set<Capability> declaredBy(RateLimitStoreProvider provider) {
        Set<Capability> declared = EnumSet.noneOf(Capability.class);
        Set<Algorithm> algorithms = provider.algorithms();
        if (algorithms.contains(Algorithm.TOKEN_BUCKET)) {
            declared.add(TOKEN_BUCKET);
        }
        if (algorithms.contains(Algorithm.SLIDING_WINDOW)) {
            declared.add(SLIDING_WINDOW);
        }
        if (algorithms.contains(Algorithm.CONCURRENCY)) {
            declared.add(CONCURRENCY);
        }
        if (provider.refunds()) {
            declared.add(REFUNDS);
            if (provider.debits()) {
                declared.add(DEBITS);
            }
        }
        if (provider.calendarWindows()) {
            declared.add(CALENDAR_WINDOWS);
        }
        return declared;
    }

    /**
     * The in-memory limiter's (the embedded store, and every shared store's per-process fallback), which has no
     * provider: it decides every algorithm and gives counts back.
     *
     * @return every capability
     */
    public static Set<Capability> inMemory() {
        return EnumSet.allOf(Capability.class);
    }

    /** Why a case that needs this capability is not run against a store that does not declare it. */
    String notDeclared() {
        return "a case of " + cases + ", which its store does not declare (" + undeclared + ")";
    }
}
