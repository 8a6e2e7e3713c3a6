package dev.ratelimiter.core;

import java.util.Locale;

/** Where counters live ({@code ratelimiter.backend}). */
public enum Backend {
    /** This process's memory: the embedded default; limits hold per process. */
    MEMORY,
    /** Valkey or Redis, shared by every replica. */
    VALKEY,
    /** A PostgreSQL table, shared by every replica. */
    POSTGRES;

    /** The configuration spelling: {@code memory}, {@code valkey}, {@code postgres}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
