package dev.ratelimiter;

/**
 * Tells the library, from inside a method whose cost is settled after the call ({@link RateLimited#settle()}), what
 * the call turned out to cost: {@code @Inject RateLimitCosts costs; ... costs.settle(response.usage().totalTokens());}.
 * The library's bean; see docs/guide.md#costs-settled-after-the-call.
 *
 * <p>The cost is applied when the call ends, returned or thrown (a {@code CompletionStage} or {@code Uni}, when it
 * completes): the difference from what it reserved ({@link RateLimited#cost()}) is debited from, or given back to,
 * the windows it was counted in, and the response's {@code RateLimit} headers report what is left after it. A later
 * call of {@code settle} in the same call replaces an earlier one. It must be called on the thread that runs the
 * method, while it runs: for a method returning a {@code Uni}, or work that completes on another thread, give the
 * cost through {@link RateLimited#costResolver()}. Called in a method nested in another call of the same bucket and
 * key on this thread (which counted nothing again), the cost goes to the outer call.
 */
public interface RateLimitCosts {

    /**
     * The response header a JAX-RS resource may set, instead of calling {@link #settle}, to give the call's actual
     * cost: a non-negative decimal integer, applied to each bucket of the request's calls that settle their cost and
     * were given none otherwise, for a resource method that returns its response (not a {@code CompletionStage} or
     * {@code Uni}, which settle when they complete) and succeeded. The library removes it before the response leaves
     * (as Kong does its {@code X-Kong-Limit}); a malformed value is ignored, and the calls keep what they reserved.
     */
    String HEADER = "X-RateLimit-Cost";

    /**
     * The actual cost of the call running on this thread, in each of its buckets that settle their cost.
     *
     * @param cost the cost, 0 or more, in the buckets' units
     * @throws IllegalArgumentException if {@code cost} is negative
     * @throws IllegalStateException    if no call of a method with {@code @RateLimited(settle = true)} runs on this
     *                                  thread (the message says where the cost can be given instead)
     */
    void settle(long cost);

    /**
     * The actual cost of the call running on this thread in one bucket, for a method with several buckets that
     * settle their cost (tokens and requests, say).
     *
     * @param bucket the bucket's name, as in {@code @RateLimited(bucket)}
     * @param cost   the cost, 0 or more, in that bucket's units
     * @throws IllegalArgumentException if {@code cost} is negative
     * @throws IllegalStateException    if no call of a method with {@code @RateLimited(bucket = bucket, settle = true)}
     *                                  runs on this thread
     */
    void settle(String bucket, long cost);
}
