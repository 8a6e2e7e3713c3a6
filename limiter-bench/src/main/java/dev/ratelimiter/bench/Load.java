package dev.ratelimiter.bench;

import java.time.Duration;

/**
 * One closed-loop load: {@code threads} callers, each calling again as soon as the previous call returned, on
 * {@code keys} distinct keys (1: one hot key), measured for {@code duration} after {@code warmup}.
 */
public record Load(int threads, int keys, Duration warmup, Duration duration) {

    boolean hot() {
        return keys == 1;
    }

    String describe() {
        return threads + (threads == 1 ? " thread, " : " threads, ")
                + (hot() ? "one hot key" : Report.number(keys) + " keys");
    }
}
