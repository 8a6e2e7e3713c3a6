package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StorePermit;

import java.util.Arrays;
import java.util.List;

/**
 * The permits of concurrency buckets ({@link dev.ratelimiter.spi.RateLimitStore#take}, {@code giveBack},
 * {@code renew}; docs/stores.md#permits) by {@code permits.lua}, run as {@link ScriptRunner} runs every script
 * (EVALSHA, EVAL after NOSCRIPT, a cluster's MOVED or ASK followed once, failures classified by
 * {@link ValkeyFailures}). One sorted set per key ({@link KeyLayout#permitsKey}), deadlines on the server's clock
 * (the script reads TIME), so every replica's leases end by one clock. A take is one round trip; a give-back or a
 * renewal of several permits is one too (in a cluster: one per run of consecutive permits whose keys share a slot,
 * as refunds are, since a script may only touch the keys of one slot). Thread-safe.
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
        slots.inSlotRuns(permits.size(), i -> slots.slot(permits.get(i)), (from, to) -> {
            runner.run(ValkeyScript.PERMITS, arguments.giveBackParameters(permits, from, to), to - from);
            return true;
        });
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
        slots.inSlotRuns(permits.size(), i -> slots.slot(permits.get(i)), (from, to) -> {
            long[] run = ValkeyStore.answer(runner.run(ValkeyScript.PERMITS,
                    arguments.renewParameters(permits, from, to), to - from));
            if (run.length != to - from) {
                throw new IllegalStateException("permits.lua answered " + Arrays.toString(run) + " to a renewal of "
                        + (to - from) + " permits");
            }
            System.arraycopy(run, 0, held, from, run.length);
            return true;
        });
        return held;
    }
}
