package dev.ratelimiter.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One measured number and what produced it.
 *
 * @param source  what was measured (a library path, an anchor, a tool)
 * @param value   the figure, in {@code unit}
 * @param unit    such as {@code decisions/s}, {@code ns/op}, {@code bytes}
 * @param details further figures of the same measurement (p50 and p99 in microseconds, bytes per decision,
 *                unavailable answers), in insertion order
 */
public record Figure(String source, double value, String unit, Map<String, Double> details) {

    public Figure {
        details = new LinkedHashMap<>(details);
    }

    public Figure(String source, double value, String unit) {
        this(source, value, unit, Map.of());
    }
}
