package dev.ratelimiter.cdi;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import jakarta.enterprise.context.RequestScoped;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

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

    /** The verdicts so far, oldest first. */
    public List<Applied> all() {
        return Collections.unmodifiableList(applied);
    }
}
