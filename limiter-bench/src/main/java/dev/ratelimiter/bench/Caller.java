package dev.ratelimiter.bench;

/**
 * One client thread's call of the thing measured; made per thread, so it may hold per-thread state.
 */
@FunctionalInterface
public interface Caller {

    /**
     * Makes one decision on the key numbered {@code key} (0 to the load's keys - 1).
     *
     * @return false for an answer that is not a decision (UNAVAILABLE, an error), counted apart
     * @throws Exception any failure; counted as not a decision
     */
    boolean call(int key) throws Exception;
}
