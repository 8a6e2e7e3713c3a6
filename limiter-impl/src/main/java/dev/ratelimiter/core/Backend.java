package dev.ratelimiter.core;

/**
 * The names of the library's own shared stores, for the code of the {@code valkey} and {@code postgres} packages
 * written before they became providers of the store SPI (docs/architecture.md, "The store SPI"). A store is named
 * by a plain {@code String} everywhere else: {@code memory} ({@link StoreProviders#MEMORY}) or a provider's
 * {@link dev.ratelimiter.spi.RateLimitStoreProvider#name()}. Transitional: removed once those packages name
 * themselves.
 */
public final class Backend {

    /** The embedded default, {@link StoreProviders#MEMORY}. */
    public static final String MEMORY = StoreProviders.MEMORY;
    /** Valkey or Redis. */
    public static final String VALKEY = "valkey";
    /** A PostgreSQL table. */
    public static final String POSTGRES = "postgres";

    private Backend() {
    }
}
