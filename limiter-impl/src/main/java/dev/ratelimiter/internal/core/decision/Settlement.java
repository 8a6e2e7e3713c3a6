package dev.ratelimiter.internal.core.decision;

/**
 * What a counted call turned out to cost once it ran, to be settled in the windows it was counted in.
 *
 * @param call    the counted call
 * @param settled its actual cost, 0 or more; the difference from {@code call.cost()} is given back or debited
 * @param refund  whether it is a failures-only bucket's successful call given back (counted in the metrics as a
 *                refund, settled at 0), rather than a cost settled after the call
 */
public record Settlement(CountedCall call, long settled, boolean refund) {

    /**
     * @throws IllegalArgumentException if {@code settled} is negative
     */
    public Settlement {
        if (settled < 0) {
            throw new IllegalArgumentException("settled cost " + settled + " is below 0");
        }
    }

    /** A failures-only bucket's successful call, given back whole. */
    public static Settlement refundOf(CountedCall call) {
        return new Settlement(call, 0, true);
    }
}
