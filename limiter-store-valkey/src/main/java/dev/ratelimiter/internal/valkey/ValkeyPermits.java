package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StorePermit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The permits of concurrency buckets ({@link dev.ratelimiter.spi.RateLimitStore#take}, {@code giveBack},
 * {@code renew}; docs/stores.md#permits) by {@code permits.lua}, run as {@link ScriptRunner} runs every script
 * (EVALSHA, EVAL after NOSCRIPT, a cluster's MOVED or ASK followed once, failures classified by
 * {@link ValkeyFailures}). One sorted set per key ({@link KeyLayout#permitsKey}), deadlines on the server's clock
 * (the script reads TIME), so every replica's leases end by one clock. A take is one round trip; a give-back or a
 * renewal of several permits is one too (in a cluster: one per slot, the permits sorted by their keys' slots first,
 * since a script may only touch the keys of one slot). Thread-safe.
 */
final class ValkeyPermits {

    private final ScriptRunner runner;
    private final ScriptArgumentEncoder arguments;
    private final SlotGrouper slots;

    ValkeyPermits(ScriptRunner runner, ScriptArgumentEncoder arguments, SlotGrouper slots) {
        this.runner = runner;
        this.arguments = arguments;
        this.slots = slots;
    }

    /**
     * Takes a permit, or only counts for {@link StorePermit#CHECK}, in one round trip.
     *
     * @return {@code [allowed 1 or 0, permits held after, ended leases removed]}
     * @throws StoreException classified by {@link ValkeyFailures}
     */
    long[] take(StorePermit permit) throws StoreException {
        return ValkeyStore.answer(runner.run(ValkeyScript.PERMITS, arguments.takeParameters(permit), 1));
    }

    /**
     * Removes each permit's id from its key's permits; nothing for an id not held. In a cluster, a later run that
     * fails throws, and the permits of the earlier runs stay given back (the others end with their leases).
     *
     * @throws StoreException classified by {@link ValkeyFailures}
     */
    void giveBack(List<StorePermit> permits) throws StoreException {
        if (permits.isEmpty()) {
            return;
        }
        List<StorePermit> sorted = inSlotOrder(permits, slotOrder(permits));
        slots.inSlotRuns(sorted.size(), i -> slots.slot(sorted.get(i)), (from, to) -> {
            runner.run(ValkeyScript.PERMITS, arguments.giveBackParameters(sorted, from, to), to - from);
            return true;
        });
    }

    /**
     * The permits' indexes sorted by their keys' slots, stably: a process's permits come in no order, and a run of
     * one slot is one round trip, so sorted a cluster takes one per slot, not one per permit.
     */
    private Integer[] slotOrder(List<StorePermit> permits) {
        int[] slotOf = new int[permits.size()];
        Integer[] order = new Integer[permits.size()];
        for (int i = 0; i < order.length; i++) {
            slotOf[i] = slots.slot(permits.get(i));
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingInt(i -> slotOf[i]));
        return order;
    }

    private static List<StorePermit> inSlotOrder(List<StorePermit> permits, Integer[] order) {
        List<StorePermit> sorted = new ArrayList<>(order.length);
        for (Integer index : order) {
            sorted.add(permits.get(index));
        }
        return sorted;
    }

    /**
     * Renews the leases of the permits still held.
     *
     * @return per permit, in order, 1 if it was held and is renewed, 0 if its lease had ended
     * @throws StoreException classified by {@link ValkeyFailures}; in a cluster, the runs before the one that
     *                        failed stay renewed
     */
    long[] renew(List<StorePermit> permits) throws StoreException {
        long[] held = new long[permits.size()];
        if (permits.isEmpty()) {
            return held;
        }
        Integer[] order = slotOrder(permits);
        List<StorePermit> sorted = inSlotOrder(permits, order);
        slots.inSlotRuns(sorted.size(), i -> slots.slot(sorted.get(i)), (from, to) -> {
            long[] run = ValkeyStore.answer(runner.run(ValkeyScript.PERMITS,
                    arguments.renewParameters(sorted, from, to), to - from));
            if (run.length != to - from) {
                throw new IllegalStateException("permits.lua answered " + Arrays.toString(run) + " to a renewal of "
                        + (to - from) + " permits");
            }
            for (int k = 0; k < run.length; k++) {
                held[order[from + k]] = run[k];
            }
            return true;
        });
        return held;
    }
}
