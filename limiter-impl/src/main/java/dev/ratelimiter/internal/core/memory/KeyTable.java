package dev.ratelimiter.internal.core.memory;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The key states of one bucket (by name), with its cap: at most {@code maxKeys} live states. A new key beyond the cap
 * is refused ({@link #refuse}: the bucket's outage policy decides), counted, and warned about once; live states are
 * never evicted, since evicting one would hand its key a fresh window. At the cap, ended windows are swept at most
 * once per second before a key is refused. A state leaves the table only retired ({@link KeyState}): retire, then
 * remove.
 */
final class KeyTable {
    private static final System.Logger LOG = System.getLogger(MemoryRateLimiter.class.getName());
    private static final long CAP_SWEEP_SPACING_MILLIS = 1_000;

    final Bucket bucket; // the instance first seen under this name: the identity check of MemoryRateLimiter.keys
    final String bucketName;
    private final int maxKeys;
    private final Map<String, KeyState> states = new ConcurrentHashMap<>();
    private final AtomicInteger live = new AtomicInteger();
    private final LongAdder refused = new LongAdder();
    private final AtomicBoolean warned = new AtomicBoolean();
    private final AtomicLong nextCapSweep = new AtomicLong(Long.MIN_VALUE);

    KeyTable(Bucket bucket, int maxKeys) {
        this.bucket = bucket;
        this.bucketName = bucket.name();
        this.maxKeys = maxKeys;
    }

    /** The key's state, or null when it has none. */
    KeyState get(String key) {
        return states.get(key);
    }

    /** Adds a new key's state, in a slot {@link #reserve}d for it; the state already there, if another came first. */
    KeyState putIfAbsent(String key, KeyState fresh) {
        return states.putIfAbsent(key, fresh);
    }

    /** Live states, ended windows not yet swept included. */
    int live() {
        return live.get();
    }

    /** New keys refused at the cap, since start. */
    long refused() {
        return refused.sum();
    }

    /** Takes a slot for a new key; at the cap, first sweeps ended windows (at most once per second). */
    boolean reserve(long now) {
        if (tryReserve()) {
            return true;
        }
        long due = nextCapSweep.get();
        if (now >= due && nextCapSweep.compareAndSet(due, now + CAP_SWEEP_SPACING_MILLIS)) {
            sweep(now);
            return tryReserve();
        }
        return false;
    }

    private boolean tryReserve() {
        while (true) {
            int current = live.get();
            if (current >= maxKeys) {
                return false;
            }
            if (live.compareAndSet(current, current + 1)) {
                return true;
            }
        }
    }

    /** Gives back a slot {@link #reserve}d for a key that another thread added first. */
    void release() {
        live.decrementAndGet();
    }

    private void remove(String key, KeyState state) {
        states.remove(key, state);
        release();
    }

    /** Retires {@code state} and removes it, unless another thread retired it first. */
    void retire(String key, KeyState state) {
        if (state.retire()) {
            remove(key, state);
        }
    }

    /**
     * The key's state for a bucket of several windows, a token bucket or a sliding window, made if missing; null when
     * the cap leaves no room for a new key. A state kept under other windows of the same algorithm (the bucket's
     * settings changed) is carried where it can be ({@link LockedState#reshaped}: each window of a length it had
     * before keeps its count), else, as one kept under another algorithm, retired first, so the key starts afresh
     * (docs/stores.md#counters-across-a-change-of-settings).
     */
    KeyState state(String key, Bucket bucket, long now) {
        while (true) {
            KeyState state = states.get(key);
            if (state == null) {
                if (!reserve(now)) {
                    return null;
                }
                KeyState fresh = switch (bucket.algorithm()) {
                    case FIXED_WINDOW -> new LockedFixedWindows(bucket);
                    case TOKEN_BUCKET -> bucket.hasSeveralWindows() ? new LockedTokenBuckets(bucket)
                            : new TokenBucketCell(bucket);
                    case SLIDING_WINDOW -> bucket.hasSeveralWindows() ? new LockedSlidingWindows(bucket)
                            : new SlidingWindowCell(bucket);
                    // the decision path takes a concurrency bucket's permits (MemoryPermits), never counts them
                    case CONCURRENCY -> throw new IllegalArgumentException("bucket '" + bucket.name()
                            + "' limits concurrency; its permits are taken, not counted");
                };
                state = states.putIfAbsent(key, fresh);
                if (state == null) {
                    return fresh;
                }
                release();
            }
            if (state.matches(bucket)) {
                return state;
            }
            if (state instanceof LockedState locked) {
                KeyState next = locked.reshaped(bucket);
                if (next != null) {
                    // The old state is retired and nobody else removes a retired state: one state for another.
                    if (states.replace(key, state, next)) {
                        return next;
                    }
                    continue;
                }
            }
            retire(key, state);
        }
    }

    /** The verdict for a new key beyond the cap, counted, and warned about once. */
    Verdict refuse(Bucket bucket) {
        refused.increment();
        if (warned.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.WARNING, "Bucket ''{0}'' holds {1} live counters, the cap set by "
                    + "ratelimiter.memory.max-keys: new keys get the bucket''s outage policy ({2}) until "
                    + "windows end. Warned once.", bucketName, String.valueOf(maxKeys), bucket.onOutage());
        }
        return Verdict.unavailable(bucket.limit(), Duration.ZERO);
    }

    /** Retires and removes every state whose windows have ended at {@code now}; how many. */
    long sweep(long now) {
        long swept = 0;
        for (Map.Entry<String, KeyState> entry : states.entrySet()) {
            if (entry.getValue().retireIfEnded(now)) {
                remove(entry.getKey(), entry.getValue());
                swept++;
            }
        }
        return swept;
    }
}
