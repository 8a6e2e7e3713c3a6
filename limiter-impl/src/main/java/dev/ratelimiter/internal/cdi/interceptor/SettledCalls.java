package dev.ratelimiter.internal.cdi.interceptor;

import dev.ratelimiter.RateLimitCosts;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The library's {@link RateLimitCosts} bean: the calls of methods with {@code @RateLimited(settle = true)} running
 * on each thread, innermost last, each with the costs its method gave (docs/guide.md#costs-settled-after-the-call).
 * {@link RateLimitedInterceptor} opens a call's {@link Frame} before the method runs and closes it when it returns;
 * {@link CallEnds} reads the costs given when the call ends.
 *
 * <p>Per thread, a list of frames, grown on entry and cut back on exit (calls nest, so they leave in the reverse
 * order); it is empty whenever no settled call runs on the thread, so the thread keeps only an empty JDK list, which
 * pins no class loader after an undeployment.
 */
@ApplicationScoped
public class SettledCalls implements RateLimitCosts {

    private final ThreadLocal<List<Frame>> running = ThreadLocal.withInitial(ArrayList::new);

    /**
     * One running call: per limit of its method, in declaration order, the cost given, or -1 for none yet. A limit
     * an outer call on this thread counted (the same bucket and key: {@link NestedCalls}) settles nothing here: a
     * cost given for it goes to the outer call, which counted it.
     */
    static final class Frame {
        private final List<RateLimitedMethodCache.BoundLimit> limits;
        private final long[] given;
        private final long nested;

        private Frame(List<RateLimitedMethodCache.BoundLimit> limits, long nested) {
            this.limits = limits;
            this.given = new long[limits.size()];
            this.nested = nested;
            Arrays.fill(given, -1);
        }

        /** Whether this call settles the limit at {@code index} itself (settled, and counted by this call). */
        private boolean settles(int index) {
            return limits.get(index).limit().settle() && (index >= Long.SIZE || (nested & 1L << index) == 0);
        }

        /** The cost the method gave for the limit at {@code index}, or -1 for none; read when the call ends. */
        synchronized long given(int index) {
            return given[index];
        }

        synchronized void give(int index, long cost) {
            given[index] = cost;
        }
    }

    /**
     * Opens a frame for a call of a method with a settled limit, before it runs.
     *
     * @param nested the limits an outer call on this thread counted ({@link NestedCalls#enter}'s bits)
     */
    Frame enter(List<RateLimitedMethodCache.BoundLimit> limits, long nested) {
        Frame frame = new Frame(limits, nested);
        running.get().add(frame);
        return frame;
    }

    /** Closes the call's frame (and any left open above it), once its method has returned or thrown. */
    void exit(Frame frame) {
        List<Frame> frames = running.get();
        int at = frames.lastIndexOf(frame);
        if (at >= 0) {
            frames.subList(at, frames.size()).clear();
        }
    }

    /** Gives the cost to each settled bucket of the innermost call on this thread (through it, to an outer call). */
    @Override
    public void settle(long cost) {
        List<Frame> frames = frames(cost, null);
        Frame frame = frames.get(frames.size() - 1);
        for (int i = 0; i < frame.limits.size(); i++) {
            if (frame.limits.get(i).limit().settle()) {
                give(frames, frames.size() - 1, frame.limits.get(i).limit().bucketName(), cost);
            }
        }
    }

    /** Gives the cost to the innermost call on this thread that settles {@code bucket}. */
    @Override
    public void settle(String bucket, long cost) {
        List<Frame> frames = frames(cost, bucket);
        if (give(frames, frames.size() - 1, bucket, cost)) {
            return;
        }
        throw new IllegalStateException("RateLimitCosts.settle(\"" + bucket + "\", " + cost + "): no call running "
                + "on this thread settles bucket '" + bucket + "'; set @RateLimited(bucket = \"" + bucket
                + "\", settle = true) on the method (docs/guide.md#costs-settled-after-the-call)");
    }

    /**
     * Gives the cost to the innermost call, from {@code frames[from]} outward, that settles {@code bucket} itself.
     *
     * @return false when none does
     */
    private static boolean give(List<Frame> frames, int from, String bucket, long cost) {
        for (int f = from; f >= 0; f--) {
            Frame frame = frames.get(f);
            for (int i = 0; i < frame.limits.size(); i++) {
                if (frame.settles(i) && frame.limits.get(i).limit().bucketName().equals(bucket)) {
                    frame.give(i, cost);
                    return true;
                }
            }
        }
        return false;
    }

    /** The settled calls running on this thread, innermost last, never empty; the cost checked first. */
    private List<Frame> frames(long cost, String bucket) {
        if (cost < 0) {
            throw new IllegalArgumentException("RateLimitCosts.settle: cost " + cost + " is below 0");
        }
        List<Frame> frames = running.get();
        if (frames.isEmpty()) {
            throw new IllegalStateException("RateLimitCosts.settle" + (bucket == null ? "" : "(\"" + bucket + "\")")
                    + " was called where no call of a method with @RateLimited(settle = true) runs on this thread: "
                    + "call it from inside such a method, on its own thread; for a method returning a Uni, or work "
                    + "that completes on another thread, name a costResolver, or on a JAX-RS resource method that "
                    + "returns its response set the response header " + HEADER
                    + " (docs/guide.md#costs-settled-after-the-call)");
        }
        return frames;
    }
}
