package dev.ratelimiter.cdi;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import jakarta.enterprise.context.RequestScoped;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;

/**
 * The verdicts given during one HTTP request, in order, from which the response filter writes the RateLimit
 * headers.
 */
@RequestScoped
public class AppliedLimits {

    /** One bucket's verdict. */
    public record Applied(Bucket bucket, Verdict verdict) {
    }

    private final List<Applied> applied = new ArrayList<>(2);

    /** Records a verdict; a later verdict of the same bucket replaces the earlier one. */
    public void record(Bucket bucket, Verdict verdict) {
        applied.removeIf(entry -> entry.bucket().name().equals(bucket.name()));
        applied.add(new Applied(bucket, verdict));
    }

    /**
     * What records a verdict of {@code bucket} into this request's limits later, from a thread where the request
     * context may no longer be active (a filter that handed its store call to a worker thread): the consumer holds
     * this request's instance, not the proxy.
     */
    public Consumer<Verdict> recorder(Bucket bucket) {
        return verdict -> record(bucket, verdict);
    }

    /**
     * This request's instance itself, not the container's proxy: what the response filter reads on a thread where
     * the request context may not be active (a {@code CompletionStage} resource method completing elsewhere).
     */
    public AppliedLimits instance() {
        return this;
    }

    /** The verdicts so far, oldest first. */
    public List<Applied> all() {
        return Collections.unmodifiableList(applied);
    }
}
