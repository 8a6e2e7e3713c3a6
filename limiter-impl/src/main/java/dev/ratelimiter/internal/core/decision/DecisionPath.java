package dev.ratelimiter.internal.core.decision;

import dev.ratelimiter.internal.core.chain.LimiterAssembly;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;

/**
 * The parts of {@link LimiterAssembly} a decision uses, and where it is reported.
 *
 * @param assembly the chain on hashed keys (no proxy in between), the key hasher, shadow mode, whether it blocks
 * @param metrics  the metrics port
 */
public record DecisionPath(LimiterAssembly assembly, RateLimiterMetrics metrics) {
}
