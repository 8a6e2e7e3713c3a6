package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.spi.CalendarPeriods;
import dev.ratelimiter.spi.FailureKind;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreRefund;

import java.io.IOException;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A complete store of the SPI in a hash map, the example of docs/writing-a-store.md: it decides on the
 * library's clock, answers in the SPI's layout, and can be taken down ({@link #down(boolean)}) so that it fails
 * as a store out of reach does, with a {@link FailureKind#TRANSIENT} {@link StoreException}. Defined only in test
 * sources and selected by name ({@code ratelimiter.backend=test-map}) through {@link MapStoreProvider}: no main
 * class knows it.
 */
public final class MapStore implements RateLimitStore {

    private final InstantSource clock;
    private final CalendarPeriods periods = new CalendarPeriods();
    /** Per bucket name and hashed key: each window's count, end (epoch milliseconds) and length. */
    private final Map<String, Map<String, long[][]>> counters = new HashMap<>(); // guarded by this
    private volatile boolean down;
    private final AtomicLong calls = new AtomicLong();

    /** @param clock the library's clock ({@code StoreContext.clock()}), which times every window */
    public MapStore(InstantSource clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Takes the store down ({@code true}: every call fails) or brings it back. */
    public void down(boolean down) {
        this.down = down;
    }

    /** The hashed keys holding a counter of the bucket, as the library sent them; for tests. */
    public synchronized Set<String> keys(Bucket bucket) {
        return new TreeSet<>(counters.getOrDefault(bucket.name(), Map.of()).keySet());
    }

    /** Calls of {@link #consume} so far, failed ones included: one per round trip a real store would make. */
    public long calls() {
        return calls.get();
    }

    @Override
    public long[] consume(List<StoreItem> items) throws StoreException {
        calls.incrementAndGet();
        failIfDown();
        long now = clock.millis();
        long[] answer = new long[items.stream().mapToInt(item -> 1 + 2 * item.bucket().limits().size()).sum()];
        int at = 0;
        synchronized (this) {
            for (StoreItem item : items) {
                boolean allowed = decide(item, now, answer, at);
                at += 1 + 2 * item.bucket().limits().size();
                if (!allowed) {
                    break; // later items are neither decided nor counted
                }
            }
        }
        return at == answer.length ? answer : java.util.Arrays.copyOf(answer, at);
    }

    /** Decides one item over every window at once and writes its numbers at {@code at}; guarded by this. */
    private boolean decide(StoreItem item, long now, long[] answer, int at) {
        List<Limit> limits = item.bucket().limits();
        Map<String, long[][]> bucket = counters.computeIfAbsent(item.bucket().name(), name -> new HashMap<>());
        long[][] windows = reshaped(bucket.get(item.key()), limits);
        long[] counts = windows[0];
        long[] ends = windows[1];
        long needed = Math.max(1, item.cost());
        boolean allowed = true;
        long[] lengths = new long[limits.size()];
        for (int i = 0; i < limits.size(); i++) {
            // A calendar window (a bucket's only window) lasts until its period ends, as the library works it out
            lengths[i] = i == 0 ? periods.windowMillis(item.bucket(), now) : limits.get(i).window().toMillis();
        }
        for (int i = 0; i < limits.size(); i++) {
            // A window opened under a longer length (the bucket's window was shortened) ends within this one, its
            // count kept (docs/stores.md#counters-across-a-change-of-settings).
            ends[i] = Math.min(ends[i], now + lengths[i]);
            long count = now >= ends[i] ? 0 : counts[i];
            allowed &= count + needed <= limits.get(i).limit();
        }
        if (allowed && item.cost() > 0) {
            for (int i = 0; i < limits.size(); i++) {
                if (now >= ends[i]) { // the window opens at its first counted attempt
                    counts[i] = 0;
                    ends[i] = now + lengths[i];
                }
                counts[i] += item.cost();
            }
            bucket.put(item.key(), windows);
        }
        answer[at] = allowed ? 1 : 0;
        for (int i = 0; i < limits.size(); i++) {
            boolean open = now < ends[i];
            answer[at + 1 + 2 * i] = open ? counts[i] : 0;
            answer[at + 2 + 2 * i] = open ? ends[i] - now : lengths[i];
        }
        return allowed;
    }

    /**
     * The key's windows under the item's (docs/stores.md#counters-across-a-change-of-settings): as they are for one
     * window (a window of another length too: its end is brought within the length by the caller) or for several of
     * the same lengths; else, windows of other lengths, each window of a length counted before keeps its count and
     * end, the others open afresh; none, or one window before and several now or back, all afresh. Each window's
     * count, end (epoch milliseconds) and length.
     */
    private static long[][] reshaped(long[][] windows, List<Limit> limits) {
        int size = limits.size();
        long[][] next = {new long[size], new long[size], new long[size]};
        for (int i = 0; i < size; i++) {
            next[2][i] = limits.get(i).window().toMillis();
        }
        if (windows == null || (windows[0].length == 1) != (size == 1)) {
            return next;
        }
        if (size == 1 || java.util.Arrays.equals(windows[2], next[2])) {
            windows[2] = next[2];
            return windows;
        }
        for (int i = 0; i < size; i++) {
            for (int j = 0; j < windows[2].length; j++) {
                if (windows[2][j] == next[2][i]) {
                    next[0][i] = windows[0][j];
                    next[1][i] = windows[1][j];
                }
            }
        }
        return next;
    }

    @Override
    public void reset(Bucket bucket, String key) throws StoreException {
        failIfDown();
        synchronized (this) {
            counters.getOrDefault(bucket.name(), new HashMap<>()).remove(key);
        }
    }

    /** The SPI's rule for fixed windows: a window the refund names gets the cost back, never below 0, or a debit. */
    @Override
    public void refund(List<StoreRefund> refunds) throws StoreException {
        calls.incrementAndGet();
        failIfDown();
        long now = clock.millis();
        synchronized (this) {
            for (StoreRefund refund : refunds) {
                long[][] windows = counters.getOrDefault(refund.bucket().name(), Map.of()).get(refund.key());
                if (windows != null && windows[0].length != refund.bucket().limits().size()) {
                    continue; // counted under other windows, not decided since: nothing of this call's to give back
                }
                for (int i = 0; windows != null && i < windows[0].length; i++) {
                    if (StoreRefund.sameWindow(refund.endsInMillis()[i], windows[1][i] - now,
                            refund.bucket().limits().get(i).window().toMillis())) {
                        windows[0][i] = Math.max(0, windows[0][i] - refund.cost());
                    }
                }
            }
        }
    }

    @Override
    public void probe() throws StoreException {
        failIfDown();
    }

    /** A map in this process neither waits on the network nor on a lock held across a call. */
    @Override
    public boolean blocking() {
        return false;
    }

    private void failIfDown() throws StoreException {
        if (down) {
            throw new StoreException(FailureKind.TRANSIENT, new IOException("test-map is down"));
        }
    }
}
