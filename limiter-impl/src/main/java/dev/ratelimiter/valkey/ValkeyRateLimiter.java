package dev.ratelimiter.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.core.Backend;
import dev.ratelimiter.core.BackendMonitor;
import dev.ratelimiter.core.RateLimiterMetrics;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Fixed windows in Valkey or Redis: one Lua script ({@code fixed-window.lua}), one round trip and one key per
 * decision. INCR and PEXPIRE run atomically; the window's remaining time is the key's PTTL, so the server's clock
 * times every replica's windows.
 *
 * <p>The script runs by EVALSHA; only an explicit NOSCRIPT reply (after a restart or SCRIPT FLUSH) sends it once
 * more by EVAL, which also caches it, and only a cluster's MOVED reply (the script did not run) sends it once more
 * to the slot's new node. A timeout is never retried, since the increment may have happened. Any
 * client error is reported to the {@link BackendMonitor} and answered {@link Verdict.Outcome#UNAVAILABLE}: this
 * class never throws out of {@link #consume}, {@link #reset} or {@link #probe}'s callers.
 *
 * <p>Keys: {@code <prefix>{<bucket>:<hashed key>}}. The braces make the whole key one Redis Cluster hash tag.
 */
public final class ValkeyRateLimiter implements RateLimiter {

    static final String SCRIPT = loadScript();
    static final String SCRIPT_SHA = sha1(SCRIPT);

    private final Supplier<UnifiedJedis> jedis;
    private final String keyPrefix;
    private final BackendMonitor monitor;
    private final RateLimiterMetrics metrics;

    /**
     * @param jedis     the pooled client (standalone, Sentinel or Cluster), owned by the caller; it may throw
     *                  while the store cannot be reached, which counts as a failure of the call
     * @param keyPrefix prepended to every key
     * @param monitor   told of every failure
     * @param metrics   told how long each call took
     */
    public ValkeyRateLimiter(Supplier<UnifiedJedis> jedis, String keyPrefix, BackendMonitor monitor,
                             RateLimiterMetrics metrics) {
        this.jedis = Objects.requireNonNull(jedis, "jedis");
        this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
        this.monitor = Objects.requireNonNull(monitor, "monitor");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    @Override
    public Verdict consume(Bucket bucket, String key) {
        String counter = counterKey(bucket, key);
        String window = Long.toString(bucket.window().toMillis());
        long start = System.nanoTime();
        try {
            UnifiedJedis client = jedis.get();
            Object reply;
            try {
                reply = run(client, counter, window);
            } catch (JedisClusterOperationException e) {
                if (!movedOnly(e)) {
                    throw e;
                }
                // A MOVED reply means the slot moved and the script never ran, so one more try is safe (the
                // client refreshed its slot map). Timeouts are never retried: their increment may have happened.
                reply = run(client, counter, window);
            }
            return verdict(bucket, reply);
        } catch (RuntimeException e) {
            monitor.failure(e);
            return Verdict.unavailable(bucket.limit(), Duration.ZERO);
        } finally {
            metrics.backendCall(Backend.VALKEY, System.nanoTime() - start);
        }
    }

    @Override
    public void reset(Bucket bucket, String key) {
        try {
            jedis.get().del(counterKey(bucket, key));
        } catch (RuntimeException e) {
            monitor.failure(e); // the window simply runs out
        }
    }

    private static Object run(UnifiedJedis client, String counter, String window) {
        try {
            return client.evalsha(SCRIPT_SHA, 1, counter, window);
        } catch (JedisNoScriptException e) {
            return client.eval(SCRIPT, 1, counter, window);
        }
    }

    private static boolean movedOnly(JedisClusterOperationException failure) {
        Throwable[] suppressed = failure.getSuppressed();
        if (suppressed.length == 0) {
            return false;
        }
        for (Throwable attempt : suppressed) {
            if (!(attempt instanceof JedisMovedDataException)) {
                return false;
            }
        }
        return true;
    }

    /**
     * One cheap keyed round trip for the circuit breaker's probe (routed like a decision in a cluster).
     *
     * @throws RuntimeException if the store does not answer in time
     */
    public void probe() {
        jedis.get().exists(keyPrefix + "{probe}");
    }

    /** {@code <prefix>{<bucket>:<hashed key>}}. */
    String counterKey(Bucket bucket, String key) {
        return keyPrefix + '{' + bucket.name() + ':' + key + '}';
    }

    private static Verdict verdict(Bucket bucket, Object reply) {
        List<?> values = (List<?>) reply;
        long count = (Long) values.get(0);
        long millisLeft = Math.max(0, Math.min((Long) values.get(1), bucket.window().toMillis()));
        Duration resetAfter = Duration.ofMillis(millisLeft);
        return count <= bucket.limit()
                ? Verdict.allowed(bucket.limit(), bucket.limit() - count, resetAfter)
                : Verdict.denied(bucket.limit(), resetAfter);
    }

    private static String loadScript() {
        try (InputStream in = ValkeyRateLimiter.class.getResourceAsStream("fixed-window.lua")) {
            if (in == null) {
                throw new IllegalStateException("fixed-window.lua is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
