package dev.ratelimiter.bench;

import dev.ratelimiter.Bucket;

import java.time.Duration;
import java.util.List;

/**
 * One shared store under test: its server, the contenders that use it, and the rows comparing them.
 */
interface StoreRig extends AutoCloseable {

    /** A refused hot key: 10 per minute, so nearly every attempt of the hot load is denied. */
    Bucket HOT = new Bucket("bench-hot", 10, Duration.ofMinutes(1));
    /** A spread load's bucket: never refuses within a run. */
    Bucket SPREAD = new Bucket("bench", 1_000_000_000L, Duration.ofMinutes(1));

    static Bucket bucket(Load load) {
        return load.hot() ? HOT : SPREAD;
    }

    /** Such as {@code Valkey}. */
    String name();

    /** The server's version and how it was started, for BENCHMARKS.md. */
    String server();

    List<Contender> contenders();

    List<Comparison> comparisons();
}
