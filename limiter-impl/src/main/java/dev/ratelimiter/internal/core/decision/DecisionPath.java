package dev.ratelimiter.internal.core.decision;

import dev.ratelimiter.internal.core.chain.LimiterAssembly;
import dev.ratelimiter.internal.core.monitor.DecisionTracer;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;

/**
 * The parts of {@link LimiterAssembly} a decision uses, and where it is reported.
 *
 * @param assembly the chain on hashed keys (no proxy in between), the key hasher, shadow mode, the lists, whether it
 *                 blocks
 * @param metrics  the metrics port
 * @param tracer   the trace port ({@link DecisionTracer#NONE} when the application does not trace)
 */
public record DecisionPath(LimiterAssembly assembly, RateLimiterMetrics metrics, DecisionTracer tracer) {
}
