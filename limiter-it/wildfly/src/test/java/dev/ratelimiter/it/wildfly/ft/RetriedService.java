package dev.ratelimiter.it.wildfly.ft;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import io.smallrye.faulttolerance.api.RateLimit;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.faulttolerance.Retry;

import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Methods with {@code @RateLimited} beside Fault Tolerance's annotations, each counting how often its body runs per
 * key. Buckets {@code ft-retry} and {@code ft-both}, 2 and 3 per hour ({@link FaultToleranceResource#CONFIG}).
 */
@ApplicationScoped
public class RetriedService {

    private final Map<String, AtomicInteger> invocations = new ConcurrentHashMap<>();

    /**
     * Always fails: Fault Tolerance runs the body three times a call. {@code @Retry} retries on any exception, the
     * library's refusal included, were it to reach Fault Tolerance's interceptor.
     */
    @RateLimited(bucket = "ft-retry")
    @Retry(maxRetries = 2, delay = 0, jitter = 0)
    public void alwaysFailing(@RateLimitKey String key) {
        counter(key).incrementAndGet();
        throw new IllegalStateException("fails every time");
    }

    /** Limited twice: by the library's bucket (3 per hour), and by SmallRye's own {@code @RateLimit} (2 per hour). */
    @RateLimited(bucket = "ft-both")
    @RateLimit(value = 2, window = 1, windowUnit = ChronoUnit.HOURS)
    public void limitedTwice(@RateLimitKey String key) {
        counter(key).incrementAndGet();
    }

    /** How often a method's body ran for {@code key}. */
    public int invocations(String key) {
        return counter(key).get();
    }

    private AtomicInteger counter(String key) {
        return invocations.computeIfAbsent(key, k -> new AtomicInteger());
    }
}
