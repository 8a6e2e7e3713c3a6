package dev.ratelimiter.bench;

import java.util.function.IntFunction;

/**
 * Something measured under a closed-loop {@link Load}: a path of the library, a bare client loop, another
 * library, or the store's own benchmark tool. A new row (a deny cache, another store, another anchor) is a new
 * contender in its rig's list and a {@link Comparison} that names it.
 */
interface Contender {

    /** The name rows and the results file use, such as {@code library store}. */
    String name();

    /** Measures one load; the figure's value is in decisions (or calls) per second. */
    Figure measure(Load load) throws Exception;

    /** How a contender measures one load. */
    @FunctionalInterface
    interface Measure {
        Figure measure(Load load) throws Exception;
    }

    /** A contender named {@code name} that measures with {@code measure}. */
    static Contender of(String name, Measure measure) {
        return new Contender() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Figure measure(Load load) throws Exception {
                return measure.measure(load);
            }
        };
    }

    /**
     * A contender run in this JVM by the {@link ClosedLoop} driver.
     *
     * @param callers for a load, each thread's caller by thread index
     */
    static Contender inJvm(String name, java.util.function.Function<Load, IntFunction<Caller>> callers) {
        return of(name, load -> ClosedLoop.run(name, load, callers.apply(load)));
    }
}
