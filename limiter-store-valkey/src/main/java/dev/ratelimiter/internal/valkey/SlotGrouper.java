package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StorePermit;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.util.List;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;

/**
 * Groups a call's entries by Redis Cluster slot, since one script may only touch the keys of one slot: outside a
 * cluster every entry goes in one script call; in a cluster, one per run of consecutive entries whose keys share a
 * slot, in order. An entry's slot is its keys' hash tag's ({@link KeyLayout}), the same for each of its windows.
 */
final class SlotGrouper {

    /** One script call for the entries from {@code from} to {@code to} (excluded); false to stop the rest. */
    interface Run {
        boolean call(int from, int to) throws StoreException;
    }

    private final Supplier<ValkeyClient> clients;
    private final ScriptArgumentEncoder arguments;

    /**
     * @param clients   the client, built if need be (may throw): it says whether it is a cluster's
     * @param arguments the keys as bytes, whose slot is computed
     */
    SlotGrouper(Supplier<ValkeyClient> clients, ScriptArgumentEncoder arguments) {
        this.clients = clients;
        this.arguments = arguments;
    }

    /**
     * Calls {@code run} on the entries from 0 to {@code size}: all at once outside a cluster; in a cluster, where a
     * script may only touch keys of one slot, once per run of consecutive entries in the same slot, in order, until
     * a run answers false.
     *
     * @param slotOf the slot of the entry at an index
     * @throws StoreException if the client cannot be had, or as {@code run} throws
     */
    void inSlotRuns(int size, IntUnaryOperator slotOf, Run run) throws StoreException {
        boolean cluster;
        try {
            cluster = clients.get().isCluster();
        } catch (RuntimeException e) {
            throw ValkeyFailures.failed(null, e);
        }
        if (!cluster) {
            run.call(0, size);
            return;
        }
        int from = 0;
        int slot = slotOf.applyAsInt(0);
        for (int i = 1; i <= size; i++) {
            int next = i < size ? slotOf.applyAsInt(i) : -1;
            if (next != slot) {
                if (!run.call(from, i)) {
                    return;
                }
                from = i;
                slot = next;
            }
        }
    }

    /** Whether a call's keys share one cluster slot, as one script call needs. */
    boolean oneSlot(List<StoreItem> call) {
        if (call.size() == 1) {
            return true;
        }
        int slot = slot(call.get(0));
        for (int i = 1; i < call.size(); i++) {
            if (slot(call.get(i)) != slot) {
                return false;
            }
        }
        return true;
    }

    /** The cluster slot of an item's keys: their hash tag's. */
    int slot(StoreItem item) {
        return slot(item.bucket(), item.key());
    }

    /** The cluster slot of every window's key of {@code key} in {@code bucket}: their hash tag's. */
    int slot(Bucket bucket, String key) {
        return JedisClusterCRC16.getSlot(arguments.of(bucket).counterKey(key));
    }

    /** The cluster slot of a permit's key ({@link KeyLayout#permitsKey}): its hash tag's. */
    int slot(StorePermit permit) {
        return JedisClusterCRC16.getSlot(arguments.permitsKey(permit));
    }
}
