package dev.ratelimiter.contract;

import java.time.Duration;

/**
 * How the contract suite lets time pass. With a limiter driven by an {@code InstantSource}, {@link #manual} moves
 * a {@link ManualClock} instantly. A backend whose windows are timed by the store itself (Valkey's key expiry)
 * supplies a {@code ContractTime} that waits for real time to pass (with Awaitility), and runs only the cases
 * that do not carry the tag {@link RateLimiterContract#CONTROLLED_CLOCK}.
 */
public interface ContractTime {

    /** Lets {@code amount} of time pass for the limiter. */
    void advance(Duration amount);

    /** Time driven by a manual clock. */
    static ContractTime manual(ManualClock clock) {
        return clock::advance;
    }
}
