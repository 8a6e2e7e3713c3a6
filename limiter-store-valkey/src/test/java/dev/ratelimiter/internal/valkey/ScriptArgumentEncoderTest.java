package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class ScriptArgumentEncoderTest {

    private static final Bucket BUCKET = Bucket.of("login", 5, Duration.ofMinutes(2));

    /** The encoder of the store's keys under {@code prefix}. */
    private static ScriptArgumentEncoder encoder(String prefix) {
        return new ScriptArgumentEncoder(new KeyLayout(prefix), java.time.InstantSource.system());
    }

    /** The script's parameters as the text sent. */
    private static java.util.List<String> sent(byte[][] parameters) {
        return java.util.Arrays.stream(parameters).map(bytes -> new String(bytes, StandardCharsets.UTF_8)).toList();
    }

    @Test
    @DisplayName("several windows: each window's key and arguments are those of the store's documented layout")
    void severalWindows() {
        Bucket bucket = Bucket.of("projects", java.util.List.of(new Limit(3, Duration.ofSeconds(10)),
                new Limit(10, Duration.ofHours(1))), dev.ratelimiter.OutagePolicy.FALLBACK);
        KeyLayout limiter = new KeyLayout("rl:");
        ScriptArgumentEncoder.OfBucket arguments = encoder("rl:").of(bucket);
        byte[][] parameters = arguments.parameters("k", 7);
        java.util.List<String> sent = sent(parameters);
        java.util.List<String> expected = new java.util.ArrayList<>(java.util.List.of(limiter.counterKeys(bucket, "k")));
        expected.addAll(java.util.List.of("7", "2", "3", "10000", "10", "3600000"));
        assertThat(limiter.counterKeys(bucket, "k")).containsExactly("rl:{projects:k}:10s", "rl:{projects:k}:1h");
        assertThat(arguments.keyCount()).isEqualTo(2);
        assertThat(sent).isEqualTo(expected);
    }

    @Test
    @DisplayName("token bucket: its own keys ({...}:tokens:<window>, the same hash tag), the window count negated, "
            + "then each window's capacity and token interval in microseconds")
    void tokenBucket() {
        Bucket bucket = Bucket.of("projects", java.util.List.of(new Limit(3, Duration.ofSeconds(10)),
                new Limit(10, Duration.ofHours(1))), dev.ratelimiter.OutagePolicy.FALLBACK,
                Algorithm.TOKEN_BUCKET, 5);
        KeyLayout limiter = new KeyLayout("rl:");
        ScriptArgumentEncoder.OfBucket arguments = encoder("rl:").of(bucket);
        java.util.List<String> sent = sent(arguments.parameters("k", 2));
        assertThat(limiter.counterKeys(bucket, "k")).containsExactly("rl:{projects:k}:tokens:10s",
                "rl:{projects:k}:tokens:1h");
        assertThat(sent).containsExactly("rl:{projects:k}:tokens:10s", "rl:{projects:k}:tokens:1h", "2", "-2", "5",
                "3333333", "10", "360000000");

        Bucket single = Bucket.of("login", java.util.List.of(new Limit(4, Duration.ofSeconds(2))),
                dev.ratelimiter.OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET, 0);
        assertThat(limiter.counterKeys(single, "k")).containsExactly("rl:{login:k}:tokens");
        assertThat(new String(encoder("rl:").of(single).counterKey("k"), StandardCharsets.UTF_8))
                .isEqualTo("rl:{login:k}:tokens");
    }

    @Test
    @DisplayName("sliding window: its own keys ({...}:sliding:<window>, the same hash tag), the window count plus "
            + "1000, then each window's limit and length in milliseconds")
    void slidingWindow() {
        Bucket bucket = Bucket.of("projects", java.util.List.of(new Limit(3, Duration.ofSeconds(10)),
                new Limit(10, Duration.ofHours(1))), dev.ratelimiter.OutagePolicy.FALLBACK,
                Algorithm.SLIDING_WINDOW, 0);
        KeyLayout limiter = new KeyLayout("rl:");
        ScriptArgumentEncoder.OfBucket arguments = encoder("rl:").of(bucket);
        java.util.List<String> sent = sent(arguments.parameters("k", 2));
        assertThat(limiter.counterKeys(bucket, "k")).containsExactly("rl:{projects:k}:sliding:10s",
                "rl:{projects:k}:sliding:1h");
        assertThat(arguments.keyCount()).isEqualTo(2);
        assertThat(arguments.argumentCount()).as("cost, count, two numbers per window").isEqualTo(6);
        assertThat(sent).containsExactly("rl:{projects:k}:sliding:10s", "rl:{projects:k}:sliding:1h", "2", "1002",
                "3", "10000", "10", "3600000");

        Bucket single = Bucket.of("login", java.util.List.of(new Limit(4, Duration.ofSeconds(2))),
                dev.ratelimiter.OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0);
        assertThat(limiter.counterKeys(single, "k")).containsExactly("rl:{login:k}:sliding");
        assertThat(new String(encoder("rl:").of(single).counterKey("k"), StandardCharsets.UTF_8))
                .isEqualTo("rl:{login:k}:sliding");
        assertThat(sent(encoder("rl:").of(single).parameters("k", 1)))
                .containsExactly("rl:{login:k}:sliding", "1", "1001", "4", "2000");
    }

    @Test
    @DisplayName("the count of windows tells the three algorithms apart for every number of windows: a fixed "
            + "window's the number of windows, a token bucket's negative, a sliding window's above 1000")
    void windowCountMarksTheAlgorithm() {
        for (int windows = 1; windows <= Bucket.MAX_WINDOWS; windows++) {
            java.util.List<Limit> limits = new java.util.ArrayList<>();
            for (int i = 1; i <= windows; i++) {
                limits.add(new Limit(i, Duration.ofSeconds(i)));
            }
            Bucket fixed = Bucket.of("b", limits, dev.ratelimiter.OutagePolicy.FALLBACK);
            Bucket tokens = Bucket.of("b", limits, dev.ratelimiter.OutagePolicy.FALLBACK,
                    Algorithm.TOKEN_BUCKET, 0);
            Bucket sliding = Bucket.of("b", limits, dev.ratelimiter.OutagePolicy.FALLBACK,
                    Algorithm.SLIDING_WINDOW, 0);
            assertThat(ScriptArgumentEncoder.windowCount(fixed)).isEqualTo(windows);
            assertThat(ScriptArgumentEncoder.windowCount(tokens)).isEqualTo(-windows);
            assertThat(ScriptArgumentEncoder.windowCount(sliding)).isEqualTo(1000 + windows)
                    .isGreaterThan(Bucket.MAX_WINDOWS);
            assertThat(new String(encoder("rl:").of(sliding).windows()[0],
                    StandardCharsets.US_ASCII)).isEqualTo(Integer.toString(1000 + windows));
        }
    }

    @Test
    @DisplayName("the bytes sent are the UTF-8 of the counter key the store documents, for ASCII and other keys")
    void counterKeyBytes() {
        for (String prefix : new String[] {"rl:", "r\u00e9seau:"}) {
            KeyLayout limiter = new KeyLayout(prefix);
            ScriptArgumentEncoder.OfBucket arguments = encoder(prefix).of(BUCKET);
            for (String key : new String[] {"W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM", "", "j\u00f6rg", "\u4e2d"}) {
                assertThat(new String(arguments.counterKey(key), StandardCharsets.UTF_8))
                        .isEqualTo(limiter.counterKey(BUCKET, key));
            }
            assertThat(new String(arguments.windows()[0], StandardCharsets.US_ASCII)).as("windows").isEqualTo("1");
            assertThat(new String(arguments.windows()[1], StandardCharsets.US_ASCII)).isEqualTo("5");
            assertThat(new String(arguments.windows()[2], StandardCharsets.US_ASCII)).isEqualTo("120000");
        }
    }

    @Test
    @DisplayName("permits: one key per permit, {<bucket>:<key>}:permits in the bucket's hash tag; then the operation, "
            + "ids as decimal text (0 a check), a take's limit and lease in ms, a renewal's lease per permit")
    void permits() {
        Bucket bucket = Bucket.concurrency("exports", 3, Duration.ofSeconds(30), dev.ratelimiter.OutagePolicy.FALLBACK);
        ScriptArgumentEncoder encoder = encoder("rl:");
        dev.ratelimiter.spi.StorePermit first = new dev.ratelimiter.spi.StorePermit(bucket, "k", Long.MIN_VALUE);
        dev.ratelimiter.spi.StorePermit second = new dev.ratelimiter.spi.StorePermit(bucket, "j", 42);
        assertThat(new KeyLayout("rl:").keysOf(bucket, "k")).containsExactly("rl:{exports:k}:permits");
        assertThat(sent(encoder.takeParameters(first)))
                .containsExactly("rl:{exports:k}:permits", "take", "-9223372036854775808", "3", "30000");
        assertThat(sent(encoder.takeParameters(new dev.ratelimiter.spi.StorePermit(bucket, "k",
                dev.ratelimiter.spi.StorePermit.CHECK)))).containsExactly("rl:{exports:k}:permits", "take", "0", "3",
                "30000");
        java.util.List<dev.ratelimiter.spi.StorePermit> both = java.util.List.of(first, second, first);
        assertThat(sent(encoder.giveBackParameters(both, 1, 3))).containsExactly("rl:{exports:j}:permits",
                "rl:{exports:k}:permits", "give-back", "42", "-9223372036854775808");
        assertThat(sent(encoder.renewParameters(both, 0, 2))).containsExactly("rl:{exports:k}:permits",
                "rl:{exports:j}:permits", "renew", "-9223372036854775808", "30000", "42", "30000");
    }
}
